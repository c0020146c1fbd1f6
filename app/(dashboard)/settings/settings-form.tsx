"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { api, ApiError } from "../_lib/api";
import { ModelInstructions, isDemoModel } from "../_lib/model-setup";
import { useSenderLabel } from "../_lib/sender";
import { clock } from "../_lib/time";
import type { QueueInfo, Settings, SettingsInfo, StatusInfo } from "../_lib/types";
import { YourAccount } from "./account-security";
import { PriceTable } from "./price-table";
import { ANSWERING_FIELDS, CONTEXT_FIELDS, HANDOFF_FIELDS, REPLAY_QUOTA_FIELD, SettingInput, type SettingField } from "./setting-fields";
import { settingLabel, settingValueText } from "./setting-labels";

type Limits = QueueInfo["limits"];
type Change = SettingsInfo["changes"][number];

const THROUGHPUT: { key: keyof Limits; label: string; help: string }[] = [
  { key: "turnConcurrency", label: "Conversations answered at once", help: "Per instance; each conversation stays in order." },
  {
    key: "modelConcurrency",
    label: "Model calls at once (ceiling)",
    help: "Per provider and instance: the limit in force adapts below it (Envelopes → Queue); a 429 pauses calls for Retry-After.",
  },
  {
    key: "burstDebounceMs",
    label: "Burst debounce (ms)",
    help: "Quiet time after a user's last message, so a burst gets one answer. 0 = none.",
  },
];

export function SettingsForm() {
  const client = useQueryClient();
  const query = useQuery({ queryKey: ["settings"], queryFn: () => api<{ settings: Settings; changes: Change[] }>("/settings") });
  const status = useQuery({ queryKey: ["status"], queryFn: () => api<StatusInfo>("/status") });
  const queue = useQuery({ queryKey: ["queue-limits"], queryFn: () => api<{ limits: Limits }>("/queue") });
  const label = useSenderLabel().sender;
  const [draft, setDraft] = useState<Settings | null>(null);
  useEffect(() => {
    if (query.data && !draft) setDraft(query.data.settings);
  }, [query.data, draft]);
  const save = useMutation({
    mutationFn: (body: Partial<Settings>) => api<{ settings: Settings }>("/settings", { method: "PATCH", body }),
    onSuccess: (data) => {
      setDraft(data.settings);
      void client.invalidateQueries({ queryKey: ["settings"] });
      void client.invalidateQueries({ queryKey: ["queue-limits"] });
    },
  });

  if (query.isLoading || !draft) return <p className="muted">Loading…</p>;
  if (query.isError)
    return (
      <p className="error" role="alert">
        Could not load settings: {query.error.message}
      </p>
    );
  const fieldError = (key: string) =>
    save.error instanceof ApiError
      ? (save.error.details as { path: string[]; message: string }[] | undefined)?.find((d) => d.path?.[0] === key)?.message
      : undefined;

  const field = (f: SettingField) => (
    <SettingInput
      key={f.key}
      field={f}
      id={f.key}
      value={draft[f.key]}
      onChange={(v) => setDraft({ ...draft, [f.key]: v })}
      error={fieldError(f.key)}
    />
  );

  return (
    <>
      <h1>Settings</h1>
      <YourAccount />
      <div className="grid2">
        <form
          className="panel"
          onSubmit={(e) => {
            e.preventDefault();
            // The price table saves its own key (price-table.tsx): a stale copy here must not undo it.
            const { agentBindings: _bindings, modelPrices: _prices, ...rest } = draft;
            save.mutate(rest);
          }}
        >
          <h2 style={{ marginTop: 0 }}>Context and forks</h2>
          {[...CONTEXT_FIELDS, REPLAY_QUOTA_FIELD].map(field)}
          <h2>Throughput</h2>
          {THROUGHPUT.map(({ key, label, help }) => (
            <div key={key}>
              <label htmlFor={key}>{label}</label>
              <input
                id={key}
                type="number"
                min={key === "burstDebounceMs" ? 0 : 1}
                placeholder={queue.data ? `server default: ${queue.data.limits[key]}` : "server default"}
                value={draft[key] === null ? "" : String(draft[key])}
                onChange={(e) => setDraft({ ...draft, [key]: e.target.value === "" ? null : Number(e.target.value) })}
                aria-describedby={`${key}-help`}
              />
              <div id={`${key}-help`} className="muted">
                {help} Empty: the server's environment. In force now: {queue.data?.limits[key] ?? "…"}.
              </div>
              {fieldError(key) && (
                <div className="error" role="alert">
                  {fieldError(key)}
                </div>
              )}
            </div>
          ))}
          <h2>Media</h2>
          <div>
            <label htmlFor="mediaRetentionDays">Keep files (days)</label>
            <input
              id="mediaRetentionDays"
              type="number"
              min={1}
              placeholder="keep as long as the messages"
              value={draft.mediaRetentionDays === null ? "" : String(draft.mediaRetentionDays)}
              onChange={(e) => setDraft({ ...draft, mediaRetentionDays: e.target.value === "" ? null : Number(e.target.value) })}
              aria-describedby="mediaRetentionDays-help"
            />
            <div id="mediaRetentionDays-help" className="muted">
              Photos, voice notes and documents of older messages are deleted from the server; the messages stay and say what was there.
              Empty: files are kept as long as their messages.
            </div>
            {fieldError("mediaRetentionDays") && (
              <div className="error" role="alert">
                {fieldError("mediaRetentionDays")}
              </div>
            )}
          </div>
          <h2>Answering</h2>
          {ANSWERING_FIELDS.map(field)}
          {status.data?.telegram.drafts?.state === "unsupported" && (
            <p className="muted" data-testid="drafts-unsupported">
              This Bot API server refused drafts ({status.data.telegram.drafts.error}): answers are sent whole.
            </p>
          )}
          <label htmlFor="agentInstructions">Agent instructions</label>
          <textarea
            id="agentInstructions"
            rows={4}
            value={draft.agentInstructions}
            onChange={(e) => setDraft({ ...draft, agentInstructions: e.target.value })}
          />
          <h2>Human handoff</h2>
          {HANDOFF_FIELDS.map(field)}
          {save.isError && !fieldError("x") && (
            <p className="error" role="alert">
              Not saved: {save.error.message}
            </p>
          )}
          {save.isSuccess && (
            <p role="status" className="muted">
              Saved. The next message uses these values.
            </p>
          )}
          <p>
            <button className="primary" type="submit" disabled={save.isPending}>
              Save settings
            </button>
          </p>
        </form>
        <div>
          <div className="panel">
            <h2 style={{ marginTop: 0 }}>Model</h2>
            {isDemoModel(status.data?.model) ? (
              <>
                <p data-testid="model-status">
                  Demo model (sandbox, no LLM configured): its answers describe what it received, to show the pipeline.
                </p>
                <p className="muted">
                  <ModelInstructions />
                </p>
              </>
            ) : status.data?.model ? (
              <p data-testid="model-status">
                {status.data.model.provider} · {status.data.model.modelId}
              </p>
            ) : (
              <>
                <p data-testid="model-status">No model configured: operators answer by hand.</p>
                <p className="muted">
                  <ModelInstructions />
                </p>
              </>
            )}
            <p className="muted">Read from the server's environment; the key is never shown.</p>
            <h2>Channels</h2>
            <p>
              Telegram:{" "}
              {status.data?.telegram.mode === "live" ? `live as @${status.data.telegram.username ?? "?"}` : "sandbox (no bot token)"}
              {status.data?.telegram.error && <span className="error"> — {status.data.telegram.error}</span>}
            </p>
            {status.data?.telegram.webhook ? (
              <p data-testid="webhook-info">
                Webhook: {status.data.telegram.webhook.url || "not set"} · {status.data.telegram.webhook.pendingUpdates} pending
                {status.data.telegram.webhook.lastError && (
                  <span className="error"> · last error: {status.data.telegram.webhook.lastError}</span>
                )}
              </p>
            ) : null}
            <p className="muted">
              Webhook: POST /api/webhooks/telegram with X-Telegram-Bot-Api-Secret-Token. Register it with npm run telegram:webhook.
            </p>
            <p data-testid="line-status">
              LINE:{" "}
              {status.data?.line.enabled ? "on (POST /api/webhooks/line)" : "off (set LINE_CHANNEL_SECRET and LINE_CHANNEL_ACCESS_TOKEN)"}
            </p>
            <p className="muted">Database: {status.data?.database}</p>
          </div>
          <PriceTable />
          <div className="panel" style={{ marginTop: 16 }}>
            <h2 style={{ marginTop: 0 }}>Change log</h2>
            {query.data!.changes.length === 0 ? (
              <p className="muted">No changes yet.</p>
            ) : (
              <table data-testid="settings-changes">
                <tbody>
                  {query.data!.changes.map((c) => (
                    <tr key={c.id}>
                      <td className="muted">{clock(c.createdAt)}</td>
                      <td>{label("operator", c.changedBy)}</td>
                      <td>
                        {c.bot && <span className="badge">{c.bot.name ?? `bot ${c.bot.id} (erased)`}</span>} {settingLabel(c.key)}:{" "}
                        {settingValueText(c.key, c.oldValue, c.bot !== null)} → {settingValueText(c.key, c.newValue, c.bot !== null)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </div>
        </div>
      </div>
    </>
  );
}
