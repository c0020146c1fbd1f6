"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import type { z } from "zod";
import type { ModelProvider } from "@/lib/agent/providers";
import type { botListResponse, botResponse, botWebhookResponse } from "@/lib/api/bots";
import { api, ApiError } from "../_lib/api";
import type { Settings } from "../_lib/types";
import { BotSettingsFields } from "./bot-settings-fields";

type Bot = z.output<typeof botListResponse>["bots"][number];
type Provider = ModelProvider;

/** Bots → add one by pasting its token, register its webhook, give it its own agent, disable or remove it. */
export function BotsConsole() {
  const bots = useQuery({ queryKey: ["bots"], queryFn: () => api<z.output<typeof botListResponse>>("/bots") });
  return (
    <>
      <h1>Bots</h1>
      <AddBotForm />
      {bots.isError && (
        <p className="error" role="alert">
          {bots.error.message}
        </p>
      )}
      {bots.data?.bots.map((bot) => (
        <BotPanel key={bot.id} bot={bot} />
      ))}
      <p className="muted">
        Each bot answers at its own webhook with its own secret. Instructions, model and settings left empty inherit the global ones
        (Settings). Credentials are stored encrypted and never shown again; only their last four characters are.
      </p>
    </>
  );
}

function AddBotForm() {
  const client = useQueryClient();
  const [platform, setPlatform] = useState<"telegram" | "line">("telegram");
  const [token, setToken] = useState("");
  const [channelSecret, setChannelSecret] = useState("");
  const [name, setName] = useState("");
  const add = useMutation({
    mutationFn: () =>
      api<z.output<typeof botResponse>>("/bots", {
        method: "POST",
        body:
          platform === "telegram"
            ? { platform, token: token.trim(), ...(name.trim() ? { name: name.trim() } : {}) }
            : {
                platform,
                channelSecret: channelSecret.trim(),
                channelAccessToken: token.trim(),
                ...(name.trim() ? { name: name.trim() } : {}),
              },
      }),
    onSuccess: () => {
      setToken("");
      setChannelSecret("");
      setName("");
      void client.invalidateQueries({ queryKey: ["bots"] });
      void client.invalidateQueries({ queryKey: ["conversations"] });
    },
  });
  return (
    <form
      className="panel"
      aria-label="Add a bot"
      style={{ marginBottom: 16 }}
      onSubmit={(e) => {
        e.preventDefault();
        add.mutate();
      }}
    >
      <h2 style={{ marginTop: 0 }}>Add a bot</h2>
      <div className="row">
        <select aria-label="Platform" value={platform} onChange={(e) => setPlatform(e.target.value === "line" ? "line" : "telegram")}>
          <option value="telegram">Telegram</option>
          <option value="line">LINE</option>
        </select>
        <input
          aria-label={platform === "telegram" ? "Bot token" : "Channel access token"}
          placeholder={platform === "telegram" ? "Token from @BotFather (123456:ABC…)" : "Channel access token"}
          value={token}
          onChange={(e) => setToken(e.target.value)}
          autoComplete="off"
          type="password"
          required
        />
        {platform === "line" && (
          <input
            aria-label="Channel secret"
            placeholder="Channel secret"
            value={channelSecret}
            onChange={(e) => setChannelSecret(e.target.value)}
            autoComplete="off"
            type="password"
            required
          />
        )}
        <input aria-label="Name (optional)" placeholder="Name (optional)" value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit" disabled={add.isPending}>
          {add.isPending ? "Checking…" : "Add bot"}
        </button>
      </div>
      {add.isError && (
        <p className="error" role="alert">
          {add.error.message}
        </p>
      )}
      {add.data && (
        <p className="ok" role="status" data-testid="bot-added">
          Added {add.data.bot.name}
          {add.data.bot.username ? ` (@${add.data.bot.username.replace(/^@/, "")})` : ""}. Register its webhook below.
        </p>
      )}
    </form>
  );
}

function useBotChange(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ method, path = "", body }: { method: "PATCH" | "DELETE" | "POST"; path?: string; body?: unknown }) =>
      api<unknown>(`/bots/${id}${path}`, { method, body }),
    onSettled: () => {
      void client.invalidateQueries({ queryKey: ["bots"] });
      void client.invalidateQueries({ queryKey: ["conversations"] });
      // A bot's own settings are in the change log (Settings).
      void client.invalidateQueries({ queryKey: ["settings"] });
    },
  });
}

function BotPanel({ bot }: { bot: Bot }) {
  const change = useBotChange(bot.id);
  const [erase, setErase] = useState(false);
  return (
    <section className="panel" aria-label={`Bot ${bot.name}`} data-testid="bot-panel" data-bot-id={bot.id} style={{ marginBottom: 16 }}>
      <div className="row">
        {/* biome-ignore lint/performance/noImgElement: the platform's picture, at its own URL (next/image would proxy it). */}
        {bot.pictureUrl && <img src={bot.pictureUrl} alt="" width={40} height={40} style={{ borderRadius: 20 }} />}
        <h2 style={{ margin: 0 }} data-testid="bot-name">
          {bot.name}
        </h2>
        {bot.username && <span className="muted">@{bot.username.replace(/^@/, "")}</span>}
        <span className="badge">{bot.platform === "line" ? "LINE" : "Telegram"}</span>
        <span className={`badge ${bot.status === "active" ? "ok" : "warn"}`} data-testid="bot-status">
          {bot.status}
        </span>
        {bot.source === "env" && <span className="badge">configured by the environment</span>}
      </div>
      <p className="muted">
        {bot.tokenHint ? `Token …${bot.tokenHint} · ` : ""}
        Webhook <code>{bot.webhookUrl ?? bot.webhookPath}</code>
        {bot.source === "api" && !bot.webhookUrl ? " (not registered yet)" : ""} ·{" "}
        <Link href={`/?botId=${bot.id}`} data-testid="bot-conversations">
          {bot.conversations} conversation{bot.conversations === 1 ? "" : "s"}
        </Link>
      </p>
      {bot.source === "api" && <WebhookForm bot={bot} />}
      <AgentForm bot={bot} />
      {bot.source === "api" && (
        <div className="row" style={{ marginTop: 8 }}>
          <button
            type="button"
            disabled={change.isPending}
            onClick={() => change.mutate({ method: "PATCH", body: { status: bot.status === "active" ? "disabled" : "active" } })}
          >
            {bot.status === "active" ? "Disable" : "Enable"}
          </button>
          <label className="muted">
            <input type="checkbox" checked={erase} onChange={(e) => setErase(e.target.checked)} /> erase its conversations too
          </label>
          <button
            type="button"
            className="danger"
            disabled={change.isPending}
            onClick={() => {
              const what = erase ? "Its conversations are erased." : "Its conversations stay readable (archived).";
              if (window.confirm(`Remove ${bot.name}? Its webhook is deleted and it stops answering. ${what}`))
                change.mutate({ method: "DELETE", path: erase ? "?erase=true" : "" });
            }}
          >
            Remove
          </button>
          {change.isError && (
            <span className="error" role="alert">
              {change.error.message}
            </span>
          )}
          {typeof change.data === "object" && change.data !== null && "warning" in change.data && (
            <span className="error" role="alert" data-testid="bot-warning">
              {String(change.data.warning)}
            </span>
          )}
        </div>
      )}
    </section>
  );
}

function WebhookForm({ bot }: { bot: Bot }) {
  const client = useQueryClient();
  const [publicUrl, setPublicUrl] = useState(() => (typeof window === "undefined" ? "" : window.location.origin));
  const register = useMutation({
    mutationFn: () => api<z.output<typeof botWebhookResponse>>(`/bots/${bot.id}/webhook`, { method: "POST", body: { publicUrl } }),
    onSettled: () => void client.invalidateQueries({ queryKey: ["bots"] }),
  });
  return (
    <form
      className="row"
      aria-label={`Webhook of ${bot.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        register.mutate();
      }}
    >
      <input aria-label="Public URL" value={publicUrl} onChange={(e) => setPublicUrl(e.target.value)} style={{ maxWidth: 360 }} />
      <button type="submit" disabled={register.isPending}>
        Register webhook
      </button>
      {register.data && (
        <span className="ok" role="status">
          {register.data.platform}: {register.data.bot.webhookUrl}
        </span>
      )}
      {register.isError && (
        <span className="error" role="alert">
          {register.error.message}
        </span>
      )}
    </form>
  );
}

/** The bot's own agent: empty fields inherit the global settings. */
function AgentForm({ bot }: { bot: Bot }) {
  const change = useBotChange(bot.id);
  const [instructions, setInstructions] = useState(bot.instructions ?? "");
  const [provider, setProvider] = useState<Provider | "">(bot.model ? (bot.model.provider as Provider) : "");
  const [model, setModel] = useState(bot.model?.model ?? "");
  const [baseUrl, setBaseUrl] = useState(bot.model?.baseUrl ?? "");
  const [apiKey, setApiKey] = useState("");
  const [overrides, setOverrides] = useState<Partial<Settings>>(bot.settings);
  // The same messages as the global form, under each field (the API's path is settings.<key>).
  const fieldError = (key: string) =>
    change.error instanceof ApiError
      ? (change.error.details as { path: string[]; message: string }[] | undefined)?.find(
          (d) => d.path?.[0] === "settings" && d.path[1] === key,
        )?.message
      : undefined;
  function save() {
    const settings = Object.keys(overrides).length ? overrides : null;
    change.mutate({
      method: "PATCH",
      body: {
        instructions: instructions.trim() ? instructions : null,
        model: provider
          ? { provider, model: model.trim(), ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}), ...(apiKey ? { apiKey } : {}) }
          : null,
        settings,
      },
    });
  }
  return (
    <details>
      <summary>Agent: instructions, model and settings</summary>
      <form
        aria-label={`Agent of ${bot.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          save();
        }}
      >
        <label>
          Instructions (empty: the global ones)
          <textarea
            aria-label="Instructions"
            rows={4}
            value={instructions}
            onChange={(e) => setInstructions(e.target.value)}
            maxLength={4000}
          />
        </label>
        <div className="row">
          <select aria-label="Model provider" value={provider} onChange={(e) => setProvider(e.target.value as Provider | "")}>
            <option value="">The deployment's model</option>
            <option value="openai">OpenAI</option>
            <option value="anthropic">Anthropic</option>
            <option value="google">Google (Gemini)</option>
            <option value="openai-compatible">OpenAI-compatible</option>
          </select>
          {provider && (
            <>
              <input aria-label="Model" placeholder="Model name" value={model} onChange={(e) => setModel(e.target.value)} required />
              <input aria-label="Base URL" placeholder="Base URL (optional)" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} />
              <input
                aria-label="API key"
                type="password"
                autoComplete="off"
                placeholder={bot.model?.hasApiKey ? "API key (stored; leave empty to keep)" : "API key"}
                value={apiKey}
                onChange={(e) => setApiKey(e.target.value)}
              />
            </>
          )}
        </div>
        <BotSettingsFields botId={bot.id} draft={overrides} onChange={setOverrides} fieldError={fieldError} />
        <button type="submit" disabled={change.isPending}>
          Save agent
        </button>
        {change.isSuccess && (
          <span className="ok" role="status">
            {" "}
            Saved
          </span>
        )}
        {change.isError && (
          <span className="error" role="alert">
            {" "}
            Not saved: {change.error.message}
          </span>
        )}
      </form>
    </details>
  );
}
