"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../_lib/api";
import type { SettingsInfo } from "../_lib/types";

/** The context settings a rebuild may change, as the settings page names them. */
const CONTEXT_FIELDS = [
  { key: "recencyWindow", label: "Recency window" },
  { key: "replyContextWindow", label: "Reply context window" },
  { key: "replyChainDepth", label: "Reply chain depth" },
  { key: "gapThresholdMinutes", label: "Gap threshold (minutes)" },
  { key: "quoteMaxChars", label: "Quote max characters" },
  { key: "forkPendingUpdates", label: "Fork pending updates" },
] as const;

export type ReplayBody = {
  mode: "frozen" | "rebuild";
  variant: {
    instructions?: string;
    model?: { provider: string; model: string; baseUrl?: string; apiKey?: string };
    settings?: Record<string, number | string>;
  };
};

/**
 * What to try: mode, model, instructions and any context setting, prefilled with
 * the values in force for the replayed turns' bot (the server decides: one bot's
 * turns, its own; several bots', the global ones). Only what differs from them goes
 * into the variant.
 */
export function VariantForm({
  submitLabel,
  busy,
  onSubmit,
  of,
}: {
  submitLabel: string;
  busy: boolean;
  onSubmit: (body: ReplayBody) => void;
  /** The replayed turn's conversation, or the dataset whose turns are replayed. */
  of: { conversationId: number } | { datasetId: number };
}) {
  const query = "conversationId" in of ? `conversationId=${of.conversationId}` : `datasetId=${of.datasetId}`;
  const settings = useQuery({ queryKey: ["settings", query], queryFn: () => api<SettingsInfo>(`/settings?${query}`) });
  if (settings.isLoading) return <p className="muted">Loading the settings…</p>;
  if (settings.isError) return <p className="error">Could not load the settings: {settings.error.message}</p>;
  return (
    <>
      {settings.data!.spansBots && (
        <p className="muted" data-testid="spans-bots">
          These turns belong to several bots: the form starts from the global settings, not any one bot&apos;s.
        </p>
      )}
      <Form key={query} current={settings.data!.settings} submitLabel={submitLabel} busy={busy} onSubmit={onSubmit} />
    </>
  );
}

function Form({
  current,
  submitLabel,
  busy,
  onSubmit,
}: {
  current: SettingsInfo["settings"];
  submitLabel: string;
  busy: boolean;
  onSubmit: (body: ReplayBody) => void;
}) {
  const [mode, setMode] = useState<"frozen" | "rebuild">("rebuild");
  const [instructions, setInstructions] = useState(current.agentInstructions);
  const [values, setValues] = useState<Record<string, string>>(
    Object.fromEntries(CONTEXT_FIELDS.map((f) => [f.key, String(current[f.key])])),
  );
  const [otherModel, setOtherModel] = useState(false);
  const [provider, setProvider] = useState("openai-compatible");
  const [model, setModel] = useState("");
  const [baseUrl, setBaseUrl] = useState("");
  const [apiKey, setApiKey] = useState("");

  function submit(e: React.FormEvent) {
    e.preventDefault();
    const changed: Record<string, number> = {};
    if (mode === "rebuild")
      for (const f of CONTEXT_FIELDS) {
        const value = Number(values[f.key]);
        if (value !== current[f.key]) changed[f.key] = value;
      }
    onSubmit({
      mode,
      variant: {
        ...(instructions !== current.agentInstructions ? { instructions } : {}),
        ...(Object.keys(changed).length ? { settings: changed } : {}),
        ...(otherModel ? { model: { provider, model, ...(baseUrl ? { baseUrl } : {}), ...(apiKey ? { apiKey } : {}) } } : {}),
      },
    });
  }

  return (
    <form onSubmit={submit} className="panel" data-testid="variant-form" style={{ display: "grid", gap: 8 }}>
      <label>
        Mode{" "}
        <select value={mode} onChange={(e) => setMode(e.target.value as "frozen" | "rebuild")} aria-label="Mode">
          <option value="rebuild">rebuild — assemble the context again under these settings</option>
          <option value="frozen">frozen — the recorded messages, as sent</option>
        </select>
      </label>
      <label style={{ display: "grid" }}>
        Instructions
        <textarea
          aria-label="Instructions"
          rows={4}
          value={instructions}
          onChange={(e) => setInstructions(e.target.value)}
          maxLength={4000}
        />
      </label>
      {mode === "rebuild" && (
        <fieldset className="row" style={{ flexWrap: "wrap", gap: 8 }}>
          <legend>Context settings</legend>
          {CONTEXT_FIELDS.map((f) => (
            <label key={f.key}>
              {f.label}{" "}
              <input
                type="number"
                aria-label={f.label}
                value={values[f.key]}
                onChange={(e) => setValues({ ...values, [f.key]: e.target.value })}
                style={{ width: 80 }}
              />
            </label>
          ))}
        </fieldset>
      )}
      <label>
        <input type="checkbox" checked={otherModel} onChange={(e) => setOtherModel(e.target.checked)} /> Another model (else the turn's own)
      </label>
      {otherModel && (
        <div className="row" style={{ flexWrap: "wrap", gap: 8 }}>
          <select aria-label="Provider" value={provider} onChange={(e) => setProvider(e.target.value)}>
            <option value="openai">openai</option>
            <option value="anthropic">anthropic</option>
            <option value="google">google</option>
            <option value="openai-compatible">openai-compatible</option>
          </select>
          <input aria-label="Model" placeholder="model" value={model} onChange={(e) => setModel(e.target.value)} required />
          <input aria-label="Base URL" placeholder="base URL (optional)" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} />
          <input
            aria-label="API key"
            type="password"
            placeholder="API key (optional, never stored)"
            value={apiKey}
            onChange={(e) => setApiKey(e.target.value)}
          />
        </div>
      )}
      <div>
        <button type="submit" disabled={busy}>
          {busy ? "Running…" : submitLabel}
        </button>
      </div>
    </form>
  );
}
