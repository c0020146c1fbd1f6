"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { api } from "../_lib/api";
import { LabelChip, PRIORITIES, PriorityMarker } from "../_lib/labels";
import { ModelInstructions, isDemoModel } from "../_lib/model-setup";
import { membershipLabel } from "../_lib/membership";
import type { ConversationSummary, StatusInfo } from "../_lib/types";
import { useOperators, useSenderLabel } from "../_lib/sender";
import { timeAgo } from "../_lib/time";
import { INBOX_VIEWS, type InboxSort, inboxQuery, useInboxFilters, useInboxList } from "../_lib/use-inbox";
import { NeedsHuman } from "../handoff/needs-human";

export function ConversationList() {
  const router = useRouter();
  const [search, setSearch] = useState("");
  const label = useSenderLabel().sender;
  const status = useQuery({ queryKey: ["status"], queryFn: () => api<StatusInfo>("/status") });
  // The filters live in the address (?label=, ?priority=, ?botId=…): a filtered list is a link (the Bots page links to a bot's).
  const { view, sort, filters, set } = useInboxFilters();
  const { botId } = filters;
  const list = useInboxList(view, sort, search, filters);
  const bots = list.data?.bots ?? [];
  const labels = list.data?.labels ?? [];
  const colorOf = (name: string) => labels.find((l) => l.name === name)?.color;
  const botName = (id: number | null) => bots.find((b) => b.id === id)?.name ?? null;
  const team = useOperators().data;
  const operators = team?.operators ?? [];
  // The simulator is for admins: an agent is not pointed at a page they cannot open.
  const canSimulate = operators.find((o) => o.id === team?.me)?.role === "admin";
  const sandbox = status.data?.telegram.mode === "sandbox" && canSimulate;
  const operatorName = (id: number) => {
    const o = operators.find((op) => op.id === id);
    return o ? (o.displayName ?? o.name) : `#${id}`;
  };
  const conversations = groupTopics(list.data?.conversations ?? []);
  const counts = list.data?.counts;

  return (
    <>
      <h1>Conversations</h1>
      <NeedsHuman />
      {status.data && (!status.data.model || isDemoModel(status.data.model)) && (
        <div className="banner" data-testid="no-model-banner">
          {status.data.model
            ? "No model configured: in the sandbox a labelled demo model answers, describing what it received. "
            : "No model configured: messages are stored and shown here, and operators answer by hand. "}
          <ModelInstructions />
        </div>
      )}
      {sandbox && (
        <div className="banner" data-testid="sandbox-banner">
          Telegram runs in the sandbox (no TELEGRAM_BOT_TOKEN): use the <a href="/simulator">simulator</a> to play a user.
        </div>
      )}
      <div className="inbox-views" role="tablist" aria-label="Inbox views">
        {INBOX_VIEWS.map((v) => (
          <button
            key={v.view}
            type="button"
            role="tab"
            aria-selected={view === v.view}
            className={view === v.view ? "tab current" : "tab"}
            data-testid={`inbox-view-${v.view}`}
            onClick={() => set({ view: v.view })}
          >
            {v.label} <span className="count">{counts ? counts[v.view] : "…"}</span>
          </button>
        ))}
      </div>
      <div className="row" style={{ marginBottom: 12 }}>
        <label className="muted" htmlFor="inbox-sort">
          Sort
        </label>
        <select id="inbox-sort" value={sort} onChange={(e) => set({ sort: e.target.value as InboxSort })} style={{ maxWidth: 200 }}>
          <option value="activity">Last activity</option>
          <option value="waiting">Waiting longest</option>
          <option value="priority">Priority</option>
        </select>
        <select
          aria-label="Label"
          data-testid="label-filter"
          value={filters.label ?? ""}
          onChange={(e) => set({ label: e.target.value || null })}
          style={{ maxWidth: 200 }}
        >
          <option value="">Any label</option>
          {filters.label && !labels.some((l) => l.name === filters.label) && <option value={filters.label}>{filters.label}</option>}
          {labels.map((l) => (
            <option key={l.id} value={l.name}>
              {l.name} ({l.conversations})
            </option>
          ))}
        </select>
        <select
          aria-label="Priority"
          data-testid="priority-filter"
          value={filters.priority ?? ""}
          onChange={(e) => set({ priority: e.target.value || null })}
          style={{ maxWidth: 160 }}
        >
          <option value="">Any priority</option>
          {[...PRIORITIES].reverse().map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        <a href={`/api/v1/conversations/export?${inboxQuery(view, sort, search, filters)}`} download data-testid="export-csv">
          Export CSV
        </a>
        {bots.length > 1 && (
          <select
            aria-label="Bot"
            data-testid="bot-filter"
            value={botId ?? ""}
            onChange={(e) => set({ botId: Number(e.target.value) || null })}
            style={{ maxWidth: 220 }}
          >
            <option value="">All bots</option>
            {bots.map((b) => (
              <option key={b.id} value={b.id}>
                {b.name}
                {b.status === "removed" ? " (removed)" : ""}
              </option>
            ))}
          </select>
        )}
        <input
          type="search"
          placeholder="Search by title, chat id or sender"
          aria-label="Search conversations"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          style={{ maxWidth: 360 }}
        />
      </div>
      {list.isLoading ? (
        <p className="muted">Loading…</p>
      ) : list.isError ? (
        // An unknown label in the address (deleted since the link was made) is a 400 that says so.
        <p className="error" role="alert">
          Could not load conversations: {list.error.message}
        </p>
      ) : conversations.length === 0 ? (
        <div className="panel muted" data-testid="empty-conversations">
          {filters.label || filters.priority ? (
            <>Nothing matches these filters.</>
          ) : view === "all" || (counts && counts.all === 0) ? (
            <>
              No conversations yet. They appear here when the first message arrives
              {sandbox ? " — try the simulator" : ""}.
            </>
          ) : (
            <>Nothing in “{INBOX_VIEWS.find((v) => v.view === view)?.label}”.</>
          )}
        </div>
      ) : (
        <table className="conversation-table">
          <thead>
            <tr>
              <th>Conversation</th>
              <th>Last message</th>
              <th>{sort === "waiting" ? "Waiting" : "Activity"}</th>
              <th>Status</th>
              <th>Unread</th>
              <th>Agent</th>
              <th>Fork</th>
            </tr>
          </thead>
          <tbody>
            {conversations.map((c) => (
              <tr
                key={c.id}
                className="row-link"
                tabIndex={0}
                data-testid={c.topicId ? "topic-row" : "conversation-row"}
                data-conversation-id={c.id}
                onClick={() => router.push(`/conversations/${c.id}`)}
                onKeyDown={(e) => {
                  if (e.key === "Enter") router.push(`/conversations/${c.id}`);
                  if (e.key === "ArrowDown") (e.currentTarget.nextElementSibling as HTMLElement | null)?.focus();
                  if (e.key === "ArrowUp") (e.currentTarget.previousElementSibling as HTMLElement | null)?.focus();
                }}
              >
                <td style={c.topicId && c.grouped ? { paddingLeft: 28 } : undefined}>
                  {c.topicId ? (
                    <>
                      <strong>
                        {c.grouped ? "↳ " : `${c.title ?? `Chat ${c.platformChatId}`} › `}
                        {c.topicName ?? `Topic ${c.topicId}`}
                      </strong>
                      <div className="muted">
                        <span data-testid="conversation-bot">{botName(c.botId) ?? c.channel}</span> · topic
                        {c.grouped ? ` of ${c.title ?? "this chat"}` : ""}
                      </div>
                    </>
                  ) : (
                    <>
                      <strong>{c.title ?? `Chat ${c.platformChatId}`}</strong>
                      <div className="muted">
                        <span data-testid="conversation-bot">{botName(c.botId) ?? c.channel}</span> · {c.type}
                      </div>
                    </>
                  )}
                  {(c.priority !== "none" || c.labels.length > 0) && (
                    <div data-testid="conversation-labels">
                      <PriorityMarker priority={c.priority} />
                      {c.labels.map((name) => (
                        <LabelChip key={name} name={name} color={colorOf(name)} />
                      ))}
                    </div>
                  )}
                  {c.membership && (
                    <span className="badge warn" data-testid="membership-badge">
                      {membershipLabel(c.membership)}
                    </span>
                  )}
                </td>
                <td className="last-message" style={{ maxWidth: 380 }}>
                  {c.lastMessage ? (
                    <span>
                      <span className="muted">{label(c.lastMessage.senderKind, c.lastMessage.senderName, c.channel)}: </span>
                      <span dir="auto" data-testid="last-message-text">
                        {c.lastMessage.text.slice(0, 120)}
                      </span>
                    </span>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td className="muted">
                  {sort === "waiting"
                    ? c.waitingSince
                      ? `waiting ${timeAgo(c.waitingSince).replace(/ ago$/, "")}`
                      : "answered"
                    : c.lastMessageAt
                      ? timeAgo(c.lastMessageAt)
                      : "—"}
                </td>
                <td data-testid="conversation-status">
                  <span className={`badge ${c.status === "resolved" ? "ok" : c.status === "snoozed" ? "" : "warn"}`}>{c.status}</span>
                  {c.assigneeId !== null && <div className="muted">{operatorName(c.assigneeId)}</div>}
                  {c.handoffState === "waiting" && <div className="badge warn">needs a human</div>}
                </td>
                <td>{c.unread > 0 ? <span className="badge warn">{c.unread}</span> : <span className="muted">0</span>}</td>
                <td data-testid="agent-state">{agentState(c, label)}</td>
                <td>{c.activeFork ? <span className="badge ok">fork #{c.activeFork.id}</span> : <span className="muted">main</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** Whether the agent answers here: not while a human is called or has the conversation (lib/pipeline/handoff-rules.ts). */
function agentState(c: ConversationSummary, label: (kind: string, name: string | null) => string) {
  if (c.handoffState === "waiting") return <span className="badge warn">off: waiting for a human</span>;
  if (c.handoffState === "assigned")
    return <span className="badge warn">off: with {c.handoffOperator ? label("operator", c.handoffOperator) : "an operator"}</span>;
  return c.agentEnabled ? <span className="badge ok">on</span> : <span className="badge warn">paused</span>;
}

/**
 * Forum topics are conversations of their own; the list shows each under its
 * chat's row (indented) when that row is on the page, else with the chat's name.
 */
function groupTopics(conversations: ConversationSummary[]): (ConversationSummary & { grouped: boolean })[] {
  const ids = new Set(conversations.map((c) => c.id));
  const topicsOf = new Map<number, ConversationSummary[]>();
  for (const c of conversations) {
    if (c.parentConversationId && ids.has(c.parentConversationId))
      topicsOf.set(c.parentConversationId, [...(topicsOf.get(c.parentConversationId) ?? []), c]);
  }
  return conversations
    .filter((c) => !(c.parentConversationId && ids.has(c.parentConversationId)))
    .flatMap((c) => [{ ...c, grouped: false }, ...(topicsOf.get(c.id) ?? []).map((t) => ({ ...t, grouped: true }))]);
}
