"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { api } from "../../_lib/api";
import { useChannelLabel } from "../../_lib/sender";
import { membershipLabel } from "../../_lib/membership";
import type { Note, StateChange, TimelineMessage } from "../../_lib/types";
import { useForkActions } from "../../_lib/use-forks";
import { ForkControls } from "../../forks/fork-controls";
import { HandoffControl } from "../../handoff/handoff-control";
import { ConversationCharts } from "./charts";
import { ConversationSpend } from "./spend";
import { Composer } from "./composer";
import { ContactPanel } from "./contact-panel";
import { InboxControls } from "./inbox-controls";
import { Timeline } from "./timeline";
import { useTimeline } from "./use-timeline";

/**
 * Pause or resume the agent in this conversation. While a human is called or has it, the
 * agent is silent whatever the switch says (lib/pipeline/handoff-rules.ts): it says so too.
 */
function AgentSwitch({
  conversationId,
  enabled,
  handoff,
}: {
  conversationId: number;
  enabled: boolean;
  handoff: "waiting" | "assigned" | null;
}) {
  const client = useQueryClient();
  const toggle = useMutation({
    mutationFn: () => api(`/conversations/${conversationId}`, { method: "PATCH", body: { agentEnabled: !enabled } }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ["conversation", conversationId] });
      void client.invalidateQueries({ queryKey: ["conversations"] });
    },
  });
  return (
    <button
      type="button"
      onClick={() => toggle.mutate()}
      disabled={toggle.isPending || handoff !== null}
      aria-pressed={enabled}
      title={handoff ? "The agent is silent until the conversation is handed back" : "Whether the agent answers in this conversation"}
    >
      Agent: {handoff ? "silent (handoff)" : enabled ? "on" : "paused"}
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
        <input
          aria-label="Background task"
          value={task}
          onChange={(e) => setTask(e.target.value)}
          placeholder="e.g. Summarize today's open questions and post them"
          style={{ maxWidth: 520 }}
        />
        <button type="submit" disabled={!task.trim() || start.isPending}>
          Run in background
        </button>
        {start.isSuccess && (
          <span className="muted" role="status">
            Started fork #{start.data.fork.id}
          </span>
        )}
        {start.isError && (
          <span className="error" role="alert">
            {start.error.message}
          </span>
        )}
      </form>
    </details>
  );
}

/** The conversation's bot: its platform, or its @username when it was added from the Bots page. */
function ChannelBadge({ channel }: { channel: string }) {
  return (
    <span className="badge" title={channel}>
      {useChannelLabel(channel)}
    </span>
  );
}

export function ConversationView({ id, focusMessageId }: { id: number; focusMessageId?: number }) {
  const timeline = useTimeline(id);
  const notes = useQuery({
    // Under ["conversation", id]: conversation events (a note added) refetch it.
    queryKey: ["conversation", id, "notes"],
    queryFn: () => api<{ notes: Note[] }>(`/conversations/${id}/notes`),
  });
  const changes = useQuery({
    // Under ["conversation", id]: a status or assignee change refetches it.
    queryKey: ["conversation", id, "changes"],
    queryFn: () => api<{ changes: StateChange[] }>(`/conversations/${id}/changes`),
  });
  const [replyTo, setReplyTo] = useState<TimelineMessage | null>(null);
  const [ownMessageId, setOwnMessageId] = useState<number | null>(null);
  // Seen up to the newest message: marked read with a POST whenever a new one shows.
  const newest = timeline.messages.at(-1)?.id;
  useEffect(() => {
    if (newest) void api(`/conversations/${id}/read`, { method: "POST" }).catch(() => {});
  }, [id, newest]);

  if (timeline.isLoading) return <p className="muted">Loading…</p>;
  if (!timeline.conversation)
    return (
      <p className="error" role="alert">
        Could not load the conversation: {timeline.error ?? "unknown error"}
      </p>
    );
  const { conversation, messages } = timeline;

  return (
    <div className="conversation-page">
      <div className="row conversation-head" style={{ justifyContent: "space-between" }}>
        <h1 data-testid="conversation-title">
          {conversation.title ?? `Chat ${conversation.platformChatId}`}
          {conversation.topicId && ` › ${conversation.topicName ?? `Topic ${conversation.topicId}`}`}
        </h1>
        <div className="row muted conversation-extra">
          <ChannelBadge channel={conversation.channel} />
          <span className="badge">{conversation.type}</span>
          {conversation.activeFork ? (
            <span className="badge ok" data-testid="active-fork">
              active fork #{conversation.activeFork.id}
            </span>
          ) : (
            <span className="badge">main session</span>
          )}
          <ConversationSpend conversationId={conversation.id} />
          <Link href={`/forks?conversationId=${conversation.id}`}>forks</Link>
          <AgentSwitch conversationId={conversation.id} enabled={conversation.agentEnabled} handoff={conversation.handoffState} />
          <HandoffControl conversationId={conversation.id} />
        </div>
      </div>
      <div className="conversation-extra">
        <InboxControls
          conversationId={conversation.id}
          status={conversation.status}
          snoozedUntil={conversation.snoozedUntil}
          assigneeId={conversation.assigneeId}
          priority={conversation.priority}
        />
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
      <div className="conversation-layout">
        <div className="conversation-main">
          <div className="conversation-extra">
            <ConversationCharts conversationId={conversation.id} />
            <BackgroundTaskForm conversationId={conversation.id} />
          </div>
          {messages.length === 0 && <div className="panel muted">No messages yet.</div>}
          {timeline.error && (
            <p className="error" role="alert">
              {timeline.error}
            </p>
          )}
          <Timeline
            messages={messages}
            notes={notes.data?.notes}
            changes={changes.data?.changes}
            hasMore={timeline.hasMore}
            loadingOlder={timeline.loadingOlder}
            loadOlder={timeline.loadOlder}
            ensureLoaded={timeline.ensureLoaded}
            replyTo={replyTo}
            onReply={setReplyTo}
            focusMessageId={focusMessageId}
            channel={conversation.channel}
            ownMessageId={ownMessageId}
          />
          <Composer
            conversationId={conversation.id}
            replyTo={replyTo}
            onCancelReply={() => setReplyTo(null)}
            onReplyAgain={setReplyTo}
            onSent={setOwnMessageId}
          />
        </div>
        <div className="conversation-extra">
          <ContactPanel conversationId={conversation.id} />
        </div>
      </div>
    </div>
  );
}
