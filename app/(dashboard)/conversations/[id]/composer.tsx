"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { MEDIA_CAPTION_LIMIT, OUTBOUND_TEXT_LIMIT, tooLongSentence } from "@/lib/channels/text-limit";
import { fileSize } from "../../_lib/attachments";
import { api, ApiError } from "../../_lib/api";
import { useSenderLabel } from "../../_lib/sender";
import type { ReplyResponse, TimelineMessage } from "../../_lib/types";
import { SavedReplyMenu, savedReplyTerm, useSavedReplyMatches } from "./saved-reply-menu";

/** The API's limit (replyBodySchema). A longer text stays whole in the box with the reason: never cut. */
const MAX_TEXT = OUTBOUND_TEXT_LIMIT;

/** A send that did not go out; `outcome: "unknown"` = it may have (check the chat before sending again). */
type Failed = {
  text: string;
  file?: File | null;
  replyTo: TimelineMessage | null;
  error: string;
  envelopeId: number | null;
  outcome: "not_sent" | "unknown" | null;
};

/**
 * Writes to the chat as an operator: a plain message (POST
 * /conversations/{id}/messages) or, after "Reply" on a message, a native reply
 * (POST /messages/{id}/reply). Enter sends, Shift+Enter starts a new line. A
 * refused send stays here with its reason and a Retry. "Note" writes an internal
 * note instead (operators only, never sent). Typing `/` looks up saved replies.
 */
export function Composer({
  conversationId,
  replyTo,
  onCancelReply,
  onReplyAgain,
  onSent,
}: {
  conversationId: number;
  replyTo: TimelineMessage | null;
  onCancelReply: () => void;
  /** Puts a refused reply's target back (the text returns to the box too). */
  onReplyAgain?: (message: TimelineMessage) => void;
  /** The id of the message a send recorded (the timeline goes to it). */
  onSent?: (messageId: number) => void;
}) {
  const client = useQueryClient();
  const label = useSenderLabel().sender;
  const [text, setText] = useState("");
  const [failed, setFailed] = useState<Failed | null>(null);
  const [mode, setMode] = useState<"message" | "note">("message");
  /** A file to send (button, drag and drop, paste); the text is then its caption. */
  const [file, setFile] = useState<File | null>(null);
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const limit = file ? MEDIA_CAPTION_LIMIT : MAX_TEXT;
  const term = savedReplyTerm(text);
  const matches = useSavedReplyMatches(conversationId, term);
  const menu = term !== null ? (matches.data?.savedReplies ?? []) : [];
  const [selected, setSelected] = useState(0);
  const pick = (index: number) => {
    const reply = menu[index];
    if (reply) setText(reply.expanded ?? reply.text);
    setSelected(0);
  };
  const note = useMutation({
    mutationFn: (value: string) => api(`/conversations/${conversationId}/notes`, { method: "POST", body: { text: value } }),
    onSuccess: () => {
      setText("");
      void refresh();
    },
  });
  // Set synchronously: `send.isPending` and the cleared text only show after a
  // re-render, and a second Enter can come before it (it sent twice).
  const inFlight = useRef(false);
  const refresh = () => client.invalidateQueries({ queryKey: ["conversation", conversationId] });

  const send = useMutation({
    mutationFn: (input: { text: string; replyTo: TimelineMessage | null; file?: File | null }) => {
      if (input.file) {
        const form = new FormData();
        form.set("file", input.file, input.file.name);
        if (input.text) form.set("caption", input.text);
        if (input.replyTo) form.set("replyToMessageId", String(input.replyTo.id));
        return api<ReplyResponse>(`/conversations/${conversationId}/media`, { method: "POST", body: form });
      }
      return input.replyTo
        ? api<ReplyResponse>(`/messages/${input.replyTo.id}/reply`, { method: "POST", body: { text: input.text } })
        : api<ReplyResponse>(`/conversations/${conversationId}/messages`, { method: "POST", body: { text: input.text } });
    },
    onMutate: (input) => {
      setText("");
      setFile(null);
      setFailed(null);
      onCancelReply();
      return input;
    },
    onSuccess: (data) => {
      if (data.messageId !== null) onSent?.(data.messageId);
    },
    onError: (error, input) => {
      // Free before the text comes back to the box: an Enter on it must send (onSettled runs later).
      inFlight.current = false;
      const details =
        error instanceof ApiError
          ? (error.details as { envelopeId?: number | null; outcome?: "not_sent" | "unknown" } | undefined)
          : undefined;
      setFailed({ ...input, error: error.message, envelopeId: details?.envelopeId ?? null, outcome: details?.outcome ?? null });
      // Refused before anything was sent (a 4xx: too long, the conversation gone): the text goes
      // back in the box to be fixed, unless the operator has started another one.
      if (error instanceof ApiError && error.status >= 400 && error.status < 500 && !details?.envelopeId) {
        setText((current) => (current === "" ? input.text : current));
        if (input.file) setFile((current) => current ?? input.file ?? null);
        if (input.replyTo) onReplyAgain?.(input.replyTo);
      }
    },
    onSettled: () => {
      inFlight.current = false;
      return refresh();
    },
  });

  function sendOnce(input: { text: string; replyTo: TimelineMessage | null; file?: File | null }) {
    if (inFlight.current) return;
    inFlight.current = true;
    send.mutate(input);
  }

  const retry = useMutation({
    mutationFn: (envelopeId: number) => api(`/envelopes/${envelopeId}/retry`, { method: "POST" }),
    onSuccess: () => {
      setFailed(null);
      void refresh();
    },
  });

  function submit() {
    const value = text.trim();
    if (mode === "note") {
      if (value && !note.isPending) note.mutate(value);
      return;
    }
    // Not send.isPending: that lasts until the timeline has refetched, and a refused text back in the box must send at once.
    if (file) {
      if (value.length <= MEDIA_CAPTION_LIMIT) sendOnce({ text: value, replyTo, file });
      return;
    }
    if (!value || value.length > MAX_TEXT) return;
    sendOnce({ text: value, replyTo });
  }

  /** The first file of a drop or a paste (one file per message, as on the platforms). */
  function takeFile(files: FileList | null | undefined) {
    const first = files?.[0];
    if (!first) return false;
    setMode("message");
    setFile(first);
    return true;
  }

  return (
    <form
      className={`panel composer ${dragging ? "dragging" : ""}`}
      style={{ marginTop: 12, maxWidth: 820 }}
      data-testid="composer"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      onDragOver={(e) => {
        if (!e.dataTransfer.types.includes("Files")) return;
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        setDragging(false);
        if (e.dataTransfer.files.length === 0) return;
        e.preventDefault();
        takeFile(e.dataTransfer.files);
      }}
    >
      <div className="row" role="radiogroup" aria-label="Write">
        <label>
          <input type="radio" name="composer-mode" checked={mode === "message"} onChange={() => setMode("message")} /> To the chat
        </label>
        <label>
          <input type="radio" name="composer-mode" checked={mode === "note"} onChange={() => setMode("note")} /> Note for the team
        </label>
      </div>
      {replyTo && mode === "message" && (
        <div className="row muted" data-testid="replying-to">
          Replying to {label(replyTo.senderKind, replyTo.senderName)}: “{replyTo.text.slice(0, 80)}”
          <button type="button" onClick={onCancelReply}>
            Cancel
          </button>
        </div>
      )}
      {file && mode === "message" && (
        <div className="row attachment-chip" data-testid="composer-file">
          📎 {file.name} <span className="muted">{fileSize(file.size)}</span>
          <button type="button" onClick={() => setFile(null)} aria-label={`Remove ${file.name}`}>
            Remove
          </button>
        </div>
      )}
      <label htmlFor="reply-text">{mode === "note" ? "Internal note" : file ? "Caption (optional)" : "Message"}</label>
      <textarea
        id="reply-text"
        rows={2}
        value={text}
        className={mode === "note" ? "note-input" : undefined}
        placeholder={
          mode === "note"
            ? "A note for the team: never sent to the chat, never shown to the model"
            : replyTo
              ? "Your reply (Enter sends, Shift+Enter for a new line, / for saved replies)"
              : "Write to the chat (Enter sends, Shift+Enter for a new line, / for saved replies)"
        }
        onChange={(e) => {
          setText(e.target.value);
          setSelected(0);
        }}
        onPaste={(e) => {
          // A pasted screenshot or copied file becomes the file to send; pasted text stays text.
          if (mode === "message" && e.clipboardData.files.length > 0 && takeFile(e.clipboardData.files)) e.preventDefault();
        }}
        onKeyDown={(e) => {
          if (menu.length > 0) {
            if (e.key === "ArrowDown" || e.key === "ArrowUp") {
              e.preventDefault();
              setSelected((i) => (i + (e.key === "ArrowDown" ? 1 : menu.length - 1)) % menu.length);
              return;
            }
            if ((e.key === "Enter" && !e.shiftKey) || e.key === "Tab") {
              e.preventDefault();
              pick(selected);
              return;
            }
            if (e.key === "Escape") {
              e.preventDefault();
              setText(`${text} `);
              return;
            }
          }
          // Enter sends; Shift+Enter (and Enter while an input method composes) is a new line.
          // keyCode 229: the Enter that ends a composition in Safari, which reports isComposing false.
          if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing && e.nativeEvent.keyCode !== 229) {
            e.preventDefault();
            submit();
          }
        }}
      />
      <SavedReplyMenu replies={menu} selected={selected} onPick={(r) => pick(menu.indexOf(r))} />
      {note.isError && (
        <p className="error" role="alert">
          Note not saved: {note.error.message}
        </p>
      )}
      {text.length > limit - 200 && (
        <p className="muted" data-testid="composer-count">
          {text.length.toLocaleString("en")} / {limit.toLocaleString("en")} characters{file ? " (a caption)" : ""}
        </p>
      )}
      {text.trim().length > limit && (
        <p className="error" role="alert" data-testid="composer-too-long">
          {tooLongSentence(text.trim().length, limit)}
        </p>
      )}
      {send.isPending && (
        <p className="muted" role="status" data-testid="composer-status">
          Sending…
        </p>
      )}
      {send.data?.recorded === false && (
        <p className="delivery-failure warn" role="alert" data-testid="composer-warning">
          {send.data.warning}
        </p>
      )}
      {failed && (
        <div className={`delivery-failure ${failed.outcome === "unknown" ? "warn" : "error"}`} role="alert" data-testid="composer-failure">
          {failed.outcome === "unknown" ? (
            <>
              <span className="badge warn">possibly delivered</span> {failed.error}: check the chat before sending it again{" "}
            </>
          ) : (
            <>
              <span className="badge err">failed</span> Not sent: {failed.error}{" "}
            </>
          )}
          (“{failed.text.slice(0, 80)}”){" "}
          {failed.envelopeId ? (
            <button type="button" onClick={() => retry.mutate(failed.envelopeId!)} disabled={retry.isPending}>
              Retry
            </button>
          ) : (
            <button
              type="button"
              onClick={() => sendOnce({ text: failed.text, replyTo: failed.replyTo, file: failed.file ?? null })}
              disabled={send.isPending}
            >
              Send again
            </button>
          )}{" "}
          <button type="button" onClick={() => setFailed(null)}>
            Dismiss
          </button>
          {retry.isError && <span className="error"> {retry.error.message}</span>}
        </div>
      )}
      <p className="row">
        <button
          className="primary"
          type="submit"
          disabled={
            (!text.trim() && !(file && mode === "message")) ||
            (mode !== "note" && text.trim().length > limit) ||
            send.isPending ||
            note.isPending
          }
        >
          {mode === "note" ? "Add note" : file ? "Send file" : replyTo ? "Send reply" : "Send"}
        </button>
        {mode === "message" && (
          <>
            <button type="button" onClick={() => fileInput.current?.click()} data-testid="attach-file">
              Attach file
            </button>
            <input
              ref={fileInput}
              type="file"
              hidden
              data-testid="file-input"
              onChange={(e) => {
                takeFile(e.target.files);
                e.target.value = "";
              }}
            />
            <span className="muted">or drop or paste a file here</span>
          </>
        )}
      </p>
    </form>
  );
}
