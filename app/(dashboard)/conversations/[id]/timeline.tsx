"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import Link from "next/link";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { messagePreview } from "@/lib/db/message-preview";
import { Attachments } from "../../_lib/attachments";
import { DeliveryFailure } from "../../_lib/delivery-failure";
import { InspectLink } from "../../_lib/inspect-link";
import { useSenderLabel } from "../../_lib/sender";
import { clock } from "../../_lib/time";
import { describeStateChange } from "../../_lib/state-change";
import type { Note, StateChange, TimelineMessage } from "../../_lib/types";
import { canChange, canRegenerate, DeleteConfirm, EditBox, RegenerateButton } from "./message-changes";

const GAP_MS = 15 * 60_000;

function gapLabel(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} minutes later`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} hour${hours === 1 ? "" : "s"} later`;
  return `${Math.floor(hours / 24)} days later`;
}

/** Per-message delivery status: sending, waiting, sent; failures are shown in full below the text. */
function statusBadge(m: TimelineMessage) {
  if (m.pending)
    return (
      <span className="badge" data-testid="message-status">
        sending…
      </span>
    );
  if (m.envelopes.some((e) => e.status === "failed")) return null;
  const waiting = m.envelopes.find((e) => e.status === "pending" || e.status === "processing");
  if (waiting)
    return (
      <span className="badge warn" data-testid="message-status">
        {waiting.status}
      </span>
    );
  if (m.direction === "outbound" && m.senderKind !== "system")
    return (
      <span className="badge ok" data-testid="message-status">
        sent
      </span>
    );
  return null;
}

type ItemProps = {
  m: TimelineMessage;
  previous: TimelineMessage | undefined;
  target: TimelineMessage | undefined;
  selected: boolean;
  highlighted: boolean;
  onReply: (m: TimelineMessage) => void;
  onJump: (id: number) => void;
  /** Display names: the bot's username, operators' display names (useSenderLabel). */
  label: (kind: string, name: string | null) => string;
  /** Edit and Delete are offered (the agent's or an operator's sent message, on Telegram). */
  changeable: boolean;
};

function MessageItem({ m, previous, target, selected, highlighted, onReply, onJump, label, changeable }: ItemProps) {
  const [changing, setChanging] = useState<"edit" | "delete" | null>(null);
  const gap = previous ? new Date(m.sentAt).getTime() - new Date(previous.sentAt).getTime() : 0;
  const quoted = m.quoteText || target?.text || m.replyToText;
  // A file without a caption has no text to quote: it reads as the conversation list shows it ("📎 invoice.pdf").
  const file = target?.attachments?.[0];
  const arrow = (
    <>
      ↩ {target ? label(target.senderKind, target.senderName) : (m.replyToSenderName ?? "message")}
      {m.replyToChatTitle ? ` in ${m.replyToChatTitle}` : ""}:{" "}
      {quoted ? (
        <>
          “<bdi>{quoted.slice(0, 140)}</bdi>”
        </>
      ) : (
        <span className="muted">{file ? messagePreview("", file) : "(no text)"}</span>
      )}
    </>
  );
  return (
    <>
      {gap > GAP_MS && (
        <div className="gap" data-testid="gap-marker">
          — {gapLabel(gap)} —
        </div>
      )}
      <article
        className={`msg ${m.senderKind} ${selected ? "selected" : ""} ${highlighted ? "highlight" : ""}`}
        data-testid="message"
        data-message-id={m.id}
        aria-current={highlighted ? "true" : undefined}
      >
        <div className="meta">
          {m.senderKind === "system" ? (
            // A fork's report: written into the main session for the model, never sent to anyone.
            <>
              <strong data-testid="sender">Fork report</strong>
              <span>not sent · exited by {label("operator", m.senderName)}</span>
            </>
          ) : (
            <>
              <strong data-testid="sender">{label(m.senderKind, m.senderName)}</strong>
              <span>{m.senderKind}</span>
            </>
          )}
          <span>{clock(m.sentAt)}</span>
          {m.editedAt && <span data-testid="edited">(edited)</span>}
          {m.deletedBy ? (
            <span className="badge warn" data-testid="deleted-by">
              deleted by {label("operator", m.deletedBy)}
            </span>
          ) : (
            m.deletedAt && <span className="badge warn">unsent</span>
          )}
          {m.senderRole && <span className="badge">{m.senderRole.replace("_", " ")}</span>}
          {m.viaBot && <span>via @{m.viaBot}</span>}
          {m.forkId && <span className="badge">fork #{m.forkId}</span>}
          {statusBadge(m)}
        </div>
        {(m.replyToMessageId || quoted) &&
          (m.replyToMessageId ? (
            <button
              type="button"
              className="reply-arrow linklike"
              data-testid="reply-arrow"
              onClick={() => onJump(m.replyToMessageId!)}
              title="Jump to the original message"
            >
              {arrow}
            </button>
          ) : (
            <div className="reply-arrow" data-testid="reply-arrow">
              {arrow}
            </div>
          ))}
        {m.forwardedFrom && <div className="muted">forwarded from {m.forwardedFrom}</div>}
        {changing === "edit" ? (
          <EditBox m={m} onClose={() => setChanging(null)} />
        ) : (
          m.text && (
            <div className="text" dir="auto">
              {m.text}
            </div>
          )
        )}
        <Attachments items={m.attachments ?? []} />
        {(m.revisions ?? []).map((r) => (
          <div key={String(r.replacedAt)} className="muted" data-testid="earlier-text">
            earlier: “<bdi>{r.text}</bdi>” (replaced {clock(r.replacedAt)})
          </div>
        ))}
        {m.envelopes
          .filter((e) => e.status === "failed")
          .map((e) => (
            <DeliveryFailure key={e.id} envelope={e} />
          ))}
        {m.id > 0 && (
          <div className="row" style={{ marginTop: 6 }}>
            {m.senderKind !== "system" && (
              <button type="button" onClick={() => onReply(m)} aria-label={`Reply to message ${m.id}`}>
                Reply
              </button>
            )}
            <Link href={`/messages/${m.id}`}>Thread</Link>
            {/* The turn that wrote it: the exact prompt the model saw. */}
            {m.senderKind === "agent" && m.turnId !== null && <InspectLink messageId={m.id}>Prompt</InspectLink>}
            {canRegenerate(m) && changing === null && <RegenerateButton m={m} />}
            {changeable && changing === null && (
              <>
                <button type="button" onClick={() => setChanging("edit")} aria-label={`Edit message ${m.id}`}>
                  Edit
                </button>
                <button type="button" onClick={() => setChanging("delete")} aria-label={`Delete message ${m.id}`}>
                  Delete
                </button>
              </>
            )}
          </div>
        )}
        {changing === "delete" && <DeleteConfirm m={m} onClose={() => setChanging(null)} />}
      </article>
    </>
  );
}

/** An internal note between the messages: for operators only, styled apart, never sent; signed as its author's messages are. */
function NoteItem({ note, name }: { note: Note; name: (signInName: string) => string }) {
  return (
    <article className="msg note" data-testid="note">
      <div className="meta">
        <strong data-testid="note-author">{name(note.operatorName)}</strong>
        <span className="badge warn">internal note</span>
        <span>{clock(note.createdAt)}</span>
      </div>
      <div className="text">{note.text}</div>
    </article>
  );
}

/** A status, assignee or handoff change: a line between the messages, like a chat app's "X joined". */
function StateChangeItem({ change, name }: { change: StateChange; name: (signInName: string) => string }) {
  return (
    <div className={`state-change ${change.kind}`} data-testid="state-change" role="note">
      <span>{describeStateChange(change, { name, time: (iso) => new Date(iso).toLocaleString() })}</span>
      <span className="muted"> · {clock(change.at)}</span>
    </div>
  );
}

type Extra = { kind: "note"; at: number; note: Note } | { kind: "change"; at: number; change: StateChange };
/** `edge`: the history's top (its beginning, or that older pages are to load), the first row of the list. */
type Row = { kind: "message"; m: TimelineMessage; index: number } | Extra | { kind: "edge" };

/**
 * Messages with the notes and state changes between them by time. While older
 * pages are still to load, extras older than the first loaded message wait for theirs.
 */
function mergeExtras(messages: TimelineMessage[], notes: Note[], changes: StateChange[], hasMore: boolean): Row[] {
  const rows: Row[] = [];
  const first = messages[0] ? new Date(messages[0].sentAt).getTime() : Number.NEGATIVE_INFINITY;
  const pending: Extra[] = [
    ...notes.map((note) => ({ kind: "note" as const, at: new Date(note.createdAt).getTime(), note })),
    ...changes.map((change) => ({ kind: "change" as const, at: new Date(change.at).getTime(), change })),
  ]
    .filter((extra) => !hasMore || extra.at >= first)
    .sort((a, b) => a.at - b.at);
  let next = 0;
  messages.forEach((m, index) => {
    const at = new Date(m.sentAt).getTime();
    while (next < pending.length && pending[next]!.at < at) rows.push(pending[next++]!);
    rows.push({ kind: "message", m, index });
  });
  while (next < pending.length) rows.push(pending[next++]!);
  return rows;
}

export type TimelineProps = {
  messages: TimelineMessage[];
  /** The conversation's channel adapter (its bot), for the answers' sender label. */
  channel?: string;
  /** Internal notes, oldest first: shown between the messages by time. */
  notes?: Note[];
  /** Status, assignee and handoff changes, oldest first: lines between the messages by time. */
  changes?: StateChange[];
  hasMore: boolean;
  loadingOlder: boolean;
  loadOlder: () => Promise<unknown>;
  ensureLoaded: (id: number) => Promise<boolean>;
  replyTo: TimelineMessage | null;
  onReply: (m: TimelineMessage) => void;
  /** A message to show at once (search results link with ?message=). */
  focusMessageId?: number;
  /**
   * The message this operator just sent: the view goes to it when it lands, even when
   * scrolled up (as Chatwoot and Intercom do); others' new messages only count on the pill.
   */
  ownMessageId?: number | null;
};

/**
 * The conversation's history, virtualized: only the rows in view (and a margin)
 * are in the DOM, so 100,000 messages scroll like 100. Opens at the newest and
 * follows new messages while the operator is at the bottom; scrolled up, a pill
 * counts what arrived. Scrolling near the top loads older pages, keeping the
 * row being read in place (the virtualizer's end anchor).
 */
export function Timeline({
  messages,
  notes = [],
  changes = [],
  hasMore,
  loadingOlder,
  loadOlder,
  ensureLoaded,
  replyTo,
  onReply,
  focusMessageId,
  channel,
  ownMessageId,
}: TimelineProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const senderOf = useSenderLabel().sender;
  // The conversation's bot names its answers (several bots: each its own username).
  const label = useCallback((kind: string, name: string | null) => senderOf(kind, name, channel), [senderOf, channel]);
  const operatorName = useCallback((name: string) => label("operator", name), [label]);
  const byId = useMemo(() => new Map(messages.map((m) => [m.id, m])), [messages]);
  const rows = useMemo<Row[]>(
    // The beginning, once reached, is the list's first row; while older pages remain, the frame
    // says so above the list instead (a first row that stays while pages are put before it
    // kept the virtualizer from loading older pages on scroll).
    () => (messages.length ? [...(hasMore ? [] : [{ kind: "edge" } as const]), ...mergeExtras(messages, notes, changes, hasMore)] : []),
    [messages, notes, changes, hasMore],
  );
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 110,
    overscan: 12,
    getItemKey: (index) => {
      const row = rows[index]!;
      if (row.kind === "edge") return "edge";
      return row.kind === "message" ? row.m.id : row.kind === "note" ? `note-${row.note.id}` : `change-${row.change.id}`;
    },
    anchorTo: "end",
    followOnAppend: true,
    scrollEndThreshold: 48,
  });
  const [highlight, setHighlight] = useState<number | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [unseen, setUnseen] = useState(0);
  const atEnd = useRef(true);
  const opened = useRef(false);
  const lastId = messages.at(-1)?.id;
  const previousLast = useRef<number | undefined>(undefined);

  // Opens at the newest message, once the first page is there.
  useEffect(() => {
    if (opened.current || messages.length === 0) return;
    opened.current = true;
    // Opened for one message (a search result): the jump scrolls there instead.
    if (!focusMessageId) virtualizer.scrollToEnd();
  }, [messages.length, virtualizer, focusMessageId]);

  // New messages while scrolled up: count them on the pill (at the bottom, the virtualizer follows).
  useEffect(() => {
    const before = previousLast.current;
    previousLast.current = lastId;
    if (before === undefined || lastId === undefined || lastId <= before) return;
    // Where the reader was before the message arrived: the new row itself makes the view not at the end for a moment.
    if (atEnd.current) return;
    setUnseen((n) => n + messages.filter((m) => m.id > before && m.id > 0).length);
  }, [lastId, messages]);

  // One's own message landed: go to it, whatever the reader was looking at (once per message).
  const followed = useRef<number | null>(null);
  useEffect(() => {
    if (!ownMessageId || followed.current === ownMessageId || !messages.some((m) => m.id === ownMessageId)) return;
    followed.current = ownMessageId;
    setUnseen(0);
    virtualizer.scrollToEnd();
  }, [ownMessageId, messages, virtualizer]);

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    // From the element itself: the virtualizer's own offset may not have seen this scroll yet.
    atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight <= 48;
    if (atEnd.current) setUnseen(0);
    if (el.scrollTop < 600 && hasMore && !loadingOlder && opened.current) void loadOlder();
  }, [hasMore, loadingOlder, loadOlder]);

  // A short history that does not fill the view cannot be scrolled up: load on.
  // biome-ignore lint/correctness/useExhaustiveDependencies: messages.length is the trigger (the view's height changes with it), not a value read.
  useEffect(() => {
    const el = scroller.current;
    if (el && opened.current && hasMore && !loadingOlder && el.scrollHeight <= el.clientHeight + 600) void loadOlder();
  }, [messages.length, hasMore, loadingOlder, loadOlder]);

  const jump = useCallback(
    async (id: number) => {
      setNotice(null);
      const found = await ensureLoaded(id);
      if (!found) {
        setNotice("The original message is not in this conversation's history.");
        return false;
      }
      setHighlight(id);
      setScrollTarget({ id });
      return true;
    },
    [ensureLoaded],
  );
  // Scrolls once the render holding the loaded pages is committed (an object: the same id twice scrolls twice).
  const [scrollTarget, setScrollTarget] = useState<{ id: number } | null>(null);
  useEffect(() => {
    if (!scrollTarget) return;
    const index = rows.findIndex((r) => r.kind === "message" && r.m.id === scrollTarget.id);
    if (index < 0) return;
    setScrollTarget(null);
    virtualizer.scrollToIndex(index, { align: "center" });
  }, [scrollTarget, rows, virtualizer]);

  useEffect(() => {
    if (highlight === null) return;
    const timer = setTimeout(() => setHighlight(null), 4_000);
    return () => clearTimeout(timer);
  }, [highlight]);

  const focused = useRef<number | null>(null);
  useEffect(() => {
    if (!focusMessageId || focused.current === focusMessageId || messages.length === 0) return;
    focused.current = focusMessageId;
    // Not here (another conversation's id, a stale link): open at the newest, as without the link.
    void jump(focusMessageId).then((found) => {
      if (!found) virtualizer.scrollToEnd();
    });
  }, [focusMessageId, messages.length, jump, virtualizer]);

  const items = virtualizer.getVirtualItems();
  return (
    <div className="timeline-frame">
      {messages.length > 0 && hasMore && (
        <div className="timeline-edge muted" data-testid="history-edge">
          {loadingOlder ? "Loading older messages…" : "Scroll up for older messages"}
        </div>
      )}
      <div
        ref={scroller}
        className="timeline-scroll"
        data-testid="timeline"
        onScroll={onScroll}
        role="log"
        aria-label="Messages"
        aria-busy={loadingOlder}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: "relative", width: "100%" }}>
          <div style={{ position: "absolute", top: 0, left: 0, width: "100%", transform: `translateY(${items[0]?.start ?? 0}px)` }}>
            {items.map((row) => {
              const item = rows[row.index]!;
              if (item.kind === "edge")
                return (
                  <div key={row.key} data-index={row.index} ref={virtualizer.measureElement}>
                    <div className="timeline-edge muted" data-testid="history-edge">
                      Beginning of the conversation
                    </div>
                  </div>
                );
              if (item.kind === "note")
                return (
                  <div key={row.key} data-index={row.index} ref={virtualizer.measureElement} className="timeline-row">
                    <NoteItem note={item.note} name={operatorName} />
                  </div>
                );
              if (item.kind === "change")
                return (
                  <div key={row.key} data-index={row.index} ref={virtualizer.measureElement} className="timeline-row">
                    <StateChangeItem change={item.change} name={operatorName} />
                  </div>
                );
              const m = item.m;
              return (
                <div key={row.key} data-index={row.index} ref={virtualizer.measureElement} className="timeline-row">
                  <MessageItem
                    m={m}
                    previous={messages[item.index - 1]}
                    target={m.replyToMessageId ? byId.get(m.replyToMessageId) : undefined}
                    selected={replyTo?.id === m.id}
                    highlighted={highlight === m.id}
                    onReply={onReply}
                    onJump={jump}
                    label={label}
                    changeable={canChange(m, channel)}
                  />
                </div>
              );
            })}
          </div>
        </div>
      </div>
      {unseen > 0 && (
        <button
          type="button"
          className="new-messages-pill"
          data-testid="new-messages-pill"
          onClick={() => {
            setUnseen(0);
            virtualizer.scrollToEnd();
          }}
        >
          ↓ {unseen} new message{unseen === 1 ? "" : "s"}
        </button>
      )}
      {notice && (
        <p className="muted" role="status">
          {notice}
        </p>
      )}
    </div>
  );
}
