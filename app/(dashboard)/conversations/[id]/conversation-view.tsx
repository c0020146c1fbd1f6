"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useState } from "react";
import { api } from "../../_lib/api";
import { membershipLabel } from "../../_lib/membership";
import { DeliveryFailure } from "../../_lib/delivery-failure";
import { clock } from "../../_lib/time";
import type { ConversationDetail, TimelineMessage } from "../../_lib/types";
import { useForkActions } from "../../_lib/use-forks";
import { useReply } from "../../_lib/use-reply";
import { ForkControls } from "../../forks/fork-controls";
import { HandoffControl } from "../../handoff/handoff-control";
import { ConversationCharts } from "./charts";

/** Pause or resume the agent in this conversation. */
function AgentSwitch({ conversationId, enabled }: { conversationId: number; enabled: boolean }) {
  const client = useQueryClient();
  const toggle = useMutation({
    mutationFn: () => api(`/conversations/${conversationId}`, { method: "PATCH", body: { agentEnabled: !enabled } }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ["conversation", conversationId] });
      void client.invalidateQueries({ queryKey: ["conversations"] });
    },
  });
  return (
    <button type="button" onClick={() => toggle.mutate()} disabled={toggle.isPending} aria-pressed={enabled} title="Whether the agent answers in this conversation">
      Agent: {enabled ? "on" : "paused"}
    </button>
  );
}

/** "Run this in the background": starts a background fork in this conversation. */
function BackgroundTaskForm({ conversationId }: { conversationId: number }) {
  const [task, setTask] = useState("");
  const { start } = useForkActions();
  return (
    <details style={{ marginBottom: 12 }}>
      <summary className="muted">Run a task in the background…</summary>
      <form
        className="row"
        style={{ marginTop: 8 }}
        onSubmit={(e) => {
          e.preventDefault();
          if (task.trim()) start.mutate({ conversationId, task }, { onSuccess: () => setTask("") });
        }}
      >
        <input aria-label="Background task" value={task} onChange={(e) => setTask(e.target.value)} placeholder="e.g. Summarize today's open questions and post them" style={{ maxWidth: 520 }} />
        <button type="submit" disabled={!task.trim() || start.isPending}>
          Run in background
        </button>
        {start.isSuccess && <span className="muted" role="status">Started fork #{start.data.fork.id}</span>}
        {start.isError && <span className="error" role="alert">{start.error.message}</span>}
      </form>
    </details>
  );
}

const GAP_MS = 15 * 60_000;

function gapLabel(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} minutes later`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} hour${hours === 1 ? "" : "s"} later`;
  return `${Math.floor(hours / 24)} days later`;
}

function statusBadge(m: TimelineMessage) {
  if (m.pending) return <span className="badge">sending…</span>;
  // Failures are shown in full under the text (DeliveryFailure), with Retry.
  if (m.envelopes.some((e) => e.status === "failed")) return null;
  const waiting = m.envelopes.find((e) => e.status === "pending" || e.status === "processing");
  if (waiting) return <span className="badge warn">{waiting.status}</span>;
  return null;
}

export function ConversationView({ id }: { id: number }) {
  const key = ["conversation", id];
  const query = useQuery({ queryKey: key, queryFn: () => api<ConversationDetail>(`/conversations/${id}/messages`), refetchInterval: 2_000 });
  const [replyTo, setReplyTo] = useState<TimelineMessage | null>(null);
  const [text, setText] = useState("");
  const reply = useReply(id);
  const byId = useMemo(() => new Map((query.data?.messages ?? []).map((m) => [m.id, m])), [query.data]);
  // Seen up to the newest message: marked read with a POST whenever a new one shows.
  const newest = query.data?.messages.at(-1)?.id;
  useEffect(() => {
    if (newest) void api(`/conversations/${id}/read`, { method: "POST" }).catch(() => {});
  }, [id, newest]);

  if (query.isLoading) return <p className="muted">Loading…</p>;
  if (query.isError) return <p className="error" role="alert">Could not load the conversation: {query.error.message}</p>;
  const { conversation, messages } = query.data!;

  async function send(event: React.FormEvent) {
    event.preventDefault();
    if (!replyTo || !text.trim()) return;
    await reply.mutateAsync({ messageId: replyTo.id, text }).then(
      () => {
        setText("");
        setReplyTo(null);
      },
      () => {},
    );
  }

  return (
    <>
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h1 data-testid="conversation-title">
          {conversation.title ?? `Chat ${conversation.platformChatId}`}
          {conversation.topicId && ` › ${conversation.topicName ?? `Topic ${conversation.topicId}`}`}
        </h1>
        <div className="row muted">
          <span className="badge">{conversation.channel}</span>
          <span className="badge">{conversation.type}</span>
          {conversation.activeFork ? (
            <span className="badge ok" data-testid="active-fork">active fork #{conversation.activeFork.id}</span>
          ) : (
            <span className="badge">main session</span>
          )}
          <Link href={`/forks?conversationId=${conversation.id}`}>forks</Link>
          <AgentSwitch conversationId={conversation.id} enabled={conversation.agentEnabled} />
          <HandoffControl conversationId={conversation.id} />
        </div>
      </div>
      {conversation.membership && (
        <div className="banner" data-testid="membership-banner">
          {membershipLabel(conversation.membership)}: messages to this chat are not sent until the bot is back.
        </div>
      )}
      {conversation.activeFork && (
        <div className="banner row" data-testid="active-fork-banner">
          New messages continue fork #{conversation.activeFork.id}
          {conversation.activeFork.title ? ` (“${conversation.activeFork.title}”)` : ""}.
          <ForkControls fork={{ id: conversation.activeFork.id, kind: "interactive", status: "active" }} anotherActive={false} />
        </div>
      )}
      <ConversationCharts conversationId={conversation.id} />
      <BackgroundTaskForm conversationId={conversation.id} />
      {messages.length === 0 && <div className="panel muted">No messages yet.</div>}
      <div className="timeline" data-testid="timeline">
        {messages.map((m, i) => {
          const prev = messages[i - 1];
          const gap = prev ? new Date(m.sentAt).getTime() - new Date(prev.sentAt).getTime() : 0;
          const target = m.replyToMessageId ? byId.get(m.replyToMessageId) : undefined;
          const quoted = m.quoteText ?? target?.text ?? m.replyToText;
          return (
            <div key={m.id}>
              {gap > GAP_MS && <div className="gap" data-testid="gap-marker">— {gapLabel(gap)} —</div>}
              <article className={`msg ${m.senderKind} ${replyTo?.id === m.id ? "selected" : ""}`} data-testid="message" data-message-id={m.id}>
                <div className="meta">
                  <strong>{m.senderName ?? m.senderKind}</strong>
                  <span>{m.senderKind}</span>
                  <span>{clock(m.sentAt)}</span>
                  {m.editedAt && <span>(edited)</span>}
                  {m.deletedAt && <span className="badge warn">unsent</span>}
                  {m.senderRole && <span className="badge">{m.senderRole.replace("_", " ")}</span>}
                  {m.viaBot && <span>via @{m.viaBot}</span>}
                  {m.forkId && <span className="badge">fork #{m.forkId}</span>}
                  {statusBadge(m)}
                </div>
                {(m.replyToMessageId || quoted) && (
                  <div className="reply-arrow" data-testid="reply-arrow">
                    ↩ {target ? (target.senderName ?? target.senderKind) : (m.replyToSenderName ?? "message")}
                    {m.replyToChatTitle ? ` in ${m.replyToChatTitle}` : ""}: “{(quoted ?? "").slice(0, 140)}”
                  </div>
                )}
                {m.forwardedFrom && <div className="muted">forwarded from {m.forwardedFrom}</div>}
                <div className="text">{m.text}</div>
                {(m.revisions ?? []).map((r, n) => (
                  <div key={n} className="muted" data-testid="earlier-text">
                    earlier: “{r.text}” (replaced {clock(r.replacedAt)})
                  </div>
                ))}
                {m.envelopes
                  .filter((e) => e.status === "failed")
                  .map((e) => (
                    <DeliveryFailure key={e.id} envelope={e} />
                  ))}
                {m.id > 0 && (
                  <div className="row" style={{ marginTop: 6 }}>
                    <button type="button" onClick={() => setReplyTo(m)} aria-label={`Reply to message ${m.id}`}>
                      Reply
                    </button>
                    <Link href={`/messages/${m.id}`}>Thread</Link>
                  </div>
                )}
              </article>
            </div>
          );
        })}
      </div>
      <form onSubmit={send} className="panel" style={{ marginTop: 16, maxWidth: 820 }}>
        {replyTo ? (
          <div className="row muted">
            Replying to {replyTo.senderName ?? replyTo.senderKind}: “{replyTo.text.slice(0, 80)}”
            <button type="button" onClick={() => setReplyTo(null)}>Cancel</button>
          </div>
        ) : (
          <p className="muted">Choose “Reply” on a message to answer it as an operator (sent as a native reply).</p>
        )}
        <label htmlFor="reply-text">Message</label>
        <textarea id="reply-text" rows={3} value={text} onChange={(e) => setText(e.target.value)} disabled={!replyTo} />
        {reply.isError && <p className="error" role="alert">Not sent: {reply.error.message}</p>}
        {reply.data?.recorded === false && <p className="delivery-failure warn" role="alert">{reply.data.warning}</p>}
        <p>
          <button className="primary" type="submit" disabled={!replyTo || !text.trim() || reply.isPending}>
            {reply.isPending ? "Sending…" : "Send reply"}
          </button>
        </p>
      </form>
    </>
  );
}
