"use client";

import Link from "next/link";
import { PRIORITIES, type Priority } from "../../_lib/labels";
import { useOperators } from "../../_lib/sender";
import { useConversationChange } from "../../_lib/use-inbox";

type Props = {
  conversationId: number;
  status: "open" | "resolved" | "snoozed";
  snoozedUntil: string | null;
  assigneeId: number | null;
  priority: Priority;
};

/** Snooze presets: an hour, tomorrow at 9:00 (local time), next Monday at 9:00, or until the user writes. */
function snoozeUntil(preset: string, now = new Date()): string | null {
  if (preset === "hour") return new Date(now.getTime() + 3_600_000).toISOString();
  const at = new Date(now);
  at.setHours(9, 0, 0, 0);
  if (preset === "tomorrow") at.setDate(at.getDate() + 1);
  if (preset === "week") at.setDate(at.getDate() + ((8 - at.getDay()) % 7 || 7));
  return at.toISOString();
}

/**
 * The conversation's place in the team inbox: its status (Resolve / Reopen / Snooze)
 * who has it, and its priority. Each change is recorded in the history (an envelope) by the server.
 */
export function InboxControls({ conversationId, status, snoozedUntil, assigneeId, priority }: Props) {
  const change = useConversationChange(conversationId);
  const operators = useOperators().data;
  const me = operators?.me ?? null;
  const assignee = operators?.operators.find((o) => o.id === assigneeId);
  return (
    <div className="row" data-testid="inbox-controls">
      <span className={`badge ${status === "resolved" ? "ok" : status === "snoozed" ? "" : "warn"}`} data-testid="inbox-status">
        {status}
        {status === "snoozed" && (snoozedUntil ? ` until ${new Date(snoozedUntil).toLocaleString()}` : " until the user writes")}
      </span>
      {status === "open" ? (
        <button type="button" className="primary" disabled={change.isPending} onClick={() => change.mutate({ status: "resolved" })}>
          Resolve
        </button>
      ) : (
        <button type="button" disabled={change.isPending} onClick={() => change.mutate({ status: "open" })}>
          Reopen
        </button>
      )}
      <select
        aria-label="Snooze"
        value=""
        disabled={change.isPending}
        onChange={(e) => {
          const preset = e.target.value;
          if (preset) change.mutate({ status: "snoozed", snoozedUntil: preset === "reply" ? null : snoozeUntil(preset) });
        }}
        style={{ maxWidth: 170 }}
      >
        <option value="">Snooze…</option>
        <option value="reply">until the user writes</option>
        <option value="hour">for an hour</option>
        <option value="tomorrow">until tomorrow 9:00</option>
        <option value="week">until Monday 9:00</option>
      </select>
      <select
        aria-label="Assignee"
        data-testid="assignee"
        value={assigneeId === null ? "" : String(assigneeId)}
        disabled={change.isPending || !operators}
        onChange={(e) => change.mutate({ assigneeId: e.target.value ? Number(e.target.value) : null })}
        // As wide as the longest name (up to the row's width: a phone cuts it, the title still says it whole).
        title={assignee ? (assignee.displayName ?? assignee.name) : "Unassigned"}
        style={{ width: "auto", maxWidth: "100%" }}
      >
        <option value="">Unassigned</option>
        {(operators?.operators ?? []).map((o) => (
          <option key={o.id} value={o.id}>
            {o.displayName ?? o.name}
            {o.id === me ? " (me)" : ""}
          </option>
        ))}
      </select>
      {me !== null && assigneeId !== me && (
        <button type="button" disabled={change.isPending} onClick={() => change.mutate({ assigneeId: me })}>
          Assign to me
        </button>
      )}
      <label className="muted">
        Priority{" "}
        <select
          aria-label="Priority"
          data-testid="priority"
          value={priority}
          disabled={change.isPending}
          onChange={(e) => change.mutate({ priority: e.target.value as Priority })}
          style={{ width: "auto" }}
        >
          {PRIORITIES.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </label>
      <a href={`/api/v1/conversations/${conversationId}/export?format=text`} download>
        Export text
      </a>
      <a href={`/api/v1/conversations/${conversationId}/export`} download>
        JSON
      </a>
      <Link href={`/replays?conversation=${conversationId}`}>Replay its turns…</Link>
      {change.isError && (
        <span className="error" role="alert">
          {change.error.message}
        </span>
      )}
    </div>
  );
}
