"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { messagePreview } from "@/lib/db/message-preview";
import { Attachments } from "../_lib/attachments";
import { useRef, useState } from "react";
import { TELEGRAM_USER_TEXT_LIMIT, tooLongSentence } from "@/lib/channels/text-limit";
import { api } from "../_lib/api";
import { useSenderLabel } from "../_lib/sender";
import type { z } from "zod";
import type { simulatedFileResponse } from "@/lib/api/simulator/schema";
import type { ConversationDetail, ConversationSummary, SimulatedUpdateResult, StatusInfo, TimelineMessage } from "../_lib/types";

type Attach = "" | "photo" | "document" | "voice";
/** What each way of sending a file takes (a voice note is what Telegram records: OGG/Opus). */
const ATTACH: Record<Exclude<Attach, "">, { label: string; accept: string }> = {
  photo: { label: "a photo", accept: "image/*" },
  document: { label: "a file (document)", accept: "" },
  voice: { label: "a voice note (OGG/Opus)", accept: ".ogg,.oga,.opus,audio/ogg" },
};

type Persona = { chatType: "private" | "group"; userId: number; firstName: string; username: string; groupId: number; groupTitle: string };

const DEFAULT: Persona = {
  chatType: "private",
  userId: 4242,
  firstName: "Alice",
  username: "alice",
  groupId: -100500,
  groupTitle: "Sandbox group",
};

/**
 * Plays a Telegram user against the sandbox: each send posts a real Update
 * through the webhook handler, so what happens here is what Telegram would cause.
 */
export function Simulator() {
  const client = useQueryClient();
  const [persona, setPersona] = useState(DEFAULT);
  const label = useSenderLabel().sender;
  const [text, setText] = useState("");
  const [replyTo, setReplyTo] = useState<TimelineMessage | null>(null);
  const [quote, setQuote] = useState("");
  const [minutesAgo, setMinutesAgo] = useState(0);
  const [attach, setAttach] = useState<Attach>("");
  const [file, setFile] = useState<File | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const chatId = persona.chatType === "private" ? persona.userId : persona.groupId;
  const status = useQuery({ queryKey: ["status"], queryFn: () => api<StatusInfo>("/status") });
  const conversations = useQuery({
    queryKey: ["conversations", ""],
    queryFn: () => api<{ conversations: ConversationSummary[] }>("/conversations?search="),
  });
  const conversation = conversations.data?.conversations.find((c) => c.channel === "telegram" && c.platformChatId === String(chatId));
  const timeline = useQuery({
    queryKey: ["conversation", conversation?.id],
    queryFn: () => api<ConversationDetail>(`/conversations/${conversation!.id}/messages?take=30`),
    enabled: Boolean(conversation),
    refetchInterval: 1_500,
  });
  // The sandbox plays one platform failure on the bot's next send (then sends normally again).
  const [nextSend, setNextSend] = useState("");
  const playFailure = useMutation({
    mutationFn: (next: string) => api("/simulator/failures", { method: "POST", body: { next: next || null } }),
    onSuccess: (_, next) => setNextSend(next),
  });
  // Set synchronously: a double click submits twice before `send.isPending` disables the button.
  const inFlight = useRef(false);
  const tooLong = text.length > TELEGRAM_USER_TEXT_LIMIT;
  const withFile = attach !== "" && file !== null;
  const send = useMutation({
    mutationFn: async () => {
      // As Telegram: the file is uploaded first, and the update names it by its file_id.
      let media: z.output<typeof simulatedFileResponse> | undefined;
      if (withFile) {
        const form = new FormData();
        form.set("kind", attach);
        form.set("file", file);
        media = await api<z.output<typeof simulatedFileResponse>>("/simulator/files", { method: "POST", body: form });
      }
      return api<SimulatedUpdateResult>("/simulator/updates", {
        method: "POST",
        body: {
          ...(media ? { media } : {}),
          chat: { type: persona.chatType, id: chatId, ...(persona.chatType === "group" ? { title: persona.groupTitle } : {}) },
          user: { id: persona.userId, firstName: persona.firstName, ...(persona.username ? { username: persona.username } : {}) },
          text,
          ...(replyTo ? { replyToMessageId: replyTo.id } : {}),
          ...(replyTo && quote ? { quote } : {}),
          ...(minutesAgo > 0 ? { sentMinutesAgo: minutesAgo } : {}),
        },
      });
    },
    onSuccess: () => {
      setAttach("");
      setFile(null);
      if (fileInput.current) fileInput.current.value = "";
      setNextSend("");
      setText("");
      setReplyTo(null);
      setQuote("");
      setMinutesAgo(0);
      void client.invalidateQueries({ queryKey: ["conversations"] });
      void client.invalidateQueries({ queryKey: ["conversation"] });
    },
    onSettled: () => {
      inFlight.current = false;
    },
  });

  if (status.data && status.data.telegram.mode !== "sandbox") {
    return (
      <>
        <h1>Simulator</h1>
        <div className="panel">The simulator is off: a real Telegram bot is configured.</div>
      </>
    );
  }
  const bot = status.data?.telegram.username ?? "switchboard_bot";
  const byId = new Map((timeline.data?.messages ?? []).map((m) => [m.id, m]));
  const set = (patch: Partial<Persona>) => setPersona((p) => ({ ...p, ...patch }));

  return (
    <>
      <h1>Simulator</h1>
      <p className="muted">
        Play a Telegram user talking to @{bot}. In groups the bot answers when mentioned (@{bot}), given a command, or replied to.
      </p>
      <div className="grid2">
        <form
          className="panel"
          onSubmit={(e) => {
            e.preventDefault();
            if ((!text.trim() && !withFile) || tooLong || inFlight.current) return;
            inFlight.current = true;
            send.mutate();
          }}
        >
          <label htmlFor="sim-chat-type">Chat</label>
          <select id="sim-chat-type" value={persona.chatType} onChange={(e) => set({ chatType: e.target.value as Persona["chatType"] })}>
            <option value="private">Private chat with the bot</option>
            <option value="group">Group</option>
          </select>
          {persona.chatType === "group" && (
            <div className="row">
              <div style={{ flex: 2 }}>
                <label htmlFor="sim-group-title">Group title</label>
                <input id="sim-group-title" value={persona.groupTitle} onChange={(e) => set({ groupTitle: e.target.value })} />
              </div>
              <div style={{ flex: 1 }}>
                <label htmlFor="sim-group-id">Group id</label>
                <input
                  id="sim-group-id"
                  type="number"
                  value={persona.groupId}
                  onChange={(e) => set({ groupId: Math.min(-1, Number(e.target.value) || -1) })}
                />
              </div>
            </div>
          )}
          <div className="row">
            <div style={{ flex: 1 }}>
              <label htmlFor="sim-name">User's first name</label>
              <input id="sim-name" value={persona.firstName} onChange={(e) => set({ firstName: e.target.value })} />
            </div>
            <div style={{ flex: 1 }}>
              <label htmlFor="sim-user-id">User id</label>
              <input id="sim-user-id" type="number" value={persona.userId} onChange={(e) => set({ userId: Number(e.target.value) || 1 })} />
            </div>
          </div>
          <label htmlFor="sim-username">Username (without @; empty: none)</label>
          <input
            id="sim-username"
            value={persona.username}
            maxLength={32}
            onChange={(e) => set({ username: e.target.value.replace(/^@/, "").trim() })}
            aria-describedby="sim-username-help"
          />
          <div id="sim-username-help" className="muted">
            5–32 letters, digits or _, as Telegram allows; the contact panel shows it.
          </div>
          {replyTo && (
            <div className="reply-arrow" data-testid="sim-replying-to">
              ↩ replying to {label(replyTo.senderKind, replyTo.senderName)}: “{replyTo.text.slice(0, 80)}”{" "}
              <button type="button" onClick={() => setReplyTo(null)}>
                Cancel
              </button>
              <label htmlFor="sim-quote">Quote a fragment (optional)</label>
              <input id="sim-quote" value={quote} onChange={(e) => setQuote(e.target.value)} placeholder="part of the replied-to text" />
            </div>
          )}
          <label htmlFor="sim-minutes-ago">Sent minutes ago (to try gap notes)</label>
          <input
            id="sim-minutes-ago"
            type="number"
            min={0}
            value={minutesAgo}
            onChange={(e) => setMinutesAgo(Math.max(0, Number(e.target.value) || 0))}
          />
          <label htmlFor="sim-next-send">The bot&apos;s next send</label>
          <select id="sim-next-send" value={nextSend} onChange={(e) => playFailure.mutate(e.target.value)}>
            <option value="">is delivered</option>
            <option value="refused">is refused (400: not enough rights)</option>
            <option value="server_error">fails with a 500 (outcome unknown)</option>
            <option value="timeout">times out (outcome unknown)</option>
          </select>
          <label htmlFor="sim-attach">Attach</label>
          <select
            id="sim-attach"
            value={attach}
            onChange={(e) => {
              setAttach(e.target.value as Attach);
              setFile(null);
              if (fileInput.current) fileInput.current.value = "";
            }}
          >
            <option value="">nothing</option>
            {Object.entries(ATTACH).map(([kind, { label }]) => (
              <option key={kind} value={kind}>
                {label}
              </option>
            ))}
          </select>
          {attach && (
            <>
              <label htmlFor="sim-file">File to send as {ATTACH[attach].label}</label>
              <input
                id="sim-file"
                ref={fileInput}
                type="file"
                accept={ATTACH[attach].accept || undefined}
                onChange={(e) => setFile(e.target.files?.[0] ?? null)}
                aria-describedby="sim-file-help"
              />
              <div id="sim-file-help" className="muted">
                Served to the bot by the sandbox&apos;s own Bot API (getFile, then the download), as Telegram would; the message below is
                its caption.
              </div>
            </>
          )}
          <label htmlFor="sim-text">Message</label>
          <textarea id="sim-text" rows={3} value={text} onChange={(e) => setText(e.target.value)} />
          {text.length > TELEGRAM_USER_TEXT_LIMIT - 200 && (
            <p className="muted" data-testid="sim-count">
              {text.length.toLocaleString("en")} / {TELEGRAM_USER_TEXT_LIMIT.toLocaleString("en")} characters (Telegram&apos;s limit for one
              message)
            </p>
          )}
          {tooLong && (
            <p className="error" role="alert" data-testid="sim-too-long">
              {tooLongSentence(text.length, TELEGRAM_USER_TEXT_LIMIT)}
            </p>
          )}
          {send.isError && (
            <p className="error" role="alert">
              {send.error.message}
            </p>
          )}
          {send.isSuccess && (
            <p className="muted" role="status">
              Delivered: {send.data.result.status}
            </p>
          )}
          <p>
            <button className="primary" type="submit" disabled={(!text.trim() && !withFile) || tooLong || send.isPending}>
              Send as {persona.firstName}
            </button>
          </p>
        </form>
        <div className="panel">
          <div className="row" style={{ justifyContent: "space-between" }}>
            <strong>Chat {chatId}</strong>
            {conversation && <Link href={`/conversations/${conversation.id}`}>Open in dashboard</Link>}
          </div>
          {!conversation && <p className="muted">No messages in this chat yet.</p>}
          <div className="timeline" data-testid="sim-timeline" style={{ marginTop: 8 }}>
            {/* What the chat shows: a fork's report is a note for the console, never sent to the user; a message an operator deleted is gone from the chat. */}
            {timeline.data?.messages
              .filter((m) => m.senderKind !== "system" && !m.deletedBy)
              .map((m) => (
                <div key={m.id} className={`msg ${m.senderKind}`} data-testid="sim-message">
                  <div className="meta">
                    <strong>{label(m.senderKind, m.senderName)}</strong>
                    {/* Telegram shows "edited" on a message its sender changed. */}
                    {m.editedAt && <span className="muted">edited</span>}
                    <button type="button" onClick={() => setReplyTo(m)} aria-label={`Reply to ${m.text.slice(0, 30)}`}>
                      Reply
                    </button>
                  </div>
                  {m.replyToMessageId && <QuotedReply m={m} target={byId.get(m.replyToMessageId)} label={label} />}
                  <div className="text" dir="auto">
                    {m.text}
                  </div>
                  <Attachments items={m.attachments ?? []} />
                </div>
              ))}
          </div>
        </div>
      </div>
    </>
  );
}

/** The replied-to message as the chat shows it above a reply: its sender and (quoted part of) its text. */
function QuotedReply({
  m,
  target,
  label,
}: {
  m: TimelineMessage;
  target: TimelineMessage | undefined;
  label: (kind: string, name: string | null) => string;
}) {
  const quoted = m.quoteText || target?.text || m.replyToText;
  const sender = target ? label(target.senderKind, target.senderName) : m.replyToSenderName;
  // A file without a caption has no text to quote: it reads as the conversation list shows it ("📎 invoice.pdf").
  const file = target?.attachments?.[0];
  return (
    <div className="reply-arrow" data-testid="sim-reply-quote">
      ↩ {sender ?? "message"}:{" "}
      {quoted ? (
        <>
          “<bdi>{quoted.slice(0, 140)}</bdi>”
        </>
      ) : (
        <bdi>{file ? messagePreview("", file) : "(no text)"}</bdi>
      )}
    </div>
  );
}
