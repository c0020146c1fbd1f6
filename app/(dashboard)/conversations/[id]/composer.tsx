"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { OUTBOUND_TEXT_LIMIT, tooLongSentence } from "@/lib/channels/text-limit";
import { api, ApiError } from "../../_lib/api";
import { useSenderLabel } from "../../_lib/sender";
import type { ReplyResponse, TimelineMessage } from "../../_lib/types";
import { SavedReplyMenu, savedReplyTerm, useSavedReplyMatches } from "./saved-reply-menu";

/** The API's limit (replyBodySchema). A longer text stays whole in the box with the reason: never cut. */
const MAX_TEXT = OUTBOUND_TEXT_LIMIT;

/** A send that did not go out; `outcome: "unknown"` = it may have (check the chat before sending again). */
type Failed = {
  text: string;
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
}: {
  conversationId: number;
  replyTo: TimelineMessage | null;
  onCancelReply: () => void;
  /** Puts a refused reply's target back (the text returns to the box too). */
  onReplyAgain?: (message: TimelineMessage) => void;
}) {
  const client = useQueryClient();
  const label = useSenderLabel().sender;
  const [text, setText] = useState("");
  const [failed, setFailed] = useState<Failed | null>(null);
  const [mode, setMode] = useState<"message" | "note">("message");
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
    mutationFn: (input: { text: string; replyTo: TimelineMessage | null }) =>
      input.replyTo
        ? api<ReplyResponse>(`/messages/${input.replyTo.id}/reply`, { method: "POST", body: { text: input.text } })
        : api<ReplyResponse>(`/conversations/${conversationId}/messages`, { method: "POST", body: { text: input.text } }),
    onMutate: (input) => {
      setText("");
      setFailed(null);
      onCancelReply();
      return input;
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
        if (input.replyTo) onReplyAgain?.(input.replyTo);
      }
    },
    onSettled: () => {
      inFlight.current = false;
      return refresh();
    },
  });

  function sendOnce(input: { text: string; replyTo: TimelineMessage | null }) {
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
    if (!value || value.length > MAX_TEXT) return;
    sendOnce({ text: value, replyTo });
  }

  return (
    <form
      className="panel composer"
      style={{ marginTop: 12, maxWidth: 820 }}
      onSubmit={(e) => {
        e.preventDefault();
        submit();
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
      <label htmlFor="reply-text">{mode === "note" ? "Internal note" : "Message"}</label>
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
      {text.length > MAX_TEXT - 200 && (
        <p className="muted" data-testid="composer-count">
          {text.length.toLocaleString("en")} / {MAX_TEXT.toLocaleString("en")} characters
        </p>
      )}
      {text.trim().length > MAX_TEXT && (
        <p className="error" role="alert" data-testid="composer-too-long">
          {tooLongSentence(text.trim().length, MAX_TEXT)}
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
            <button type="button" onClick={() => sendOnce({ text: failed.text, replyTo: failed.replyTo })} disabled={send.isPending}>
              Send again
            </button>
          )}{" "}
          <button type="button" onClick={() => setFailed(null)}>
            Dismiss
          </button>
          {retry.isError && <span className="error"> {retry.error.message}</span>}
        </div>
      )}
      <p>
        <button
          className="primary"
          type="submit"
          disabled={!text.trim() || (mode !== "note" && text.trim().length > MAX_TEXT) || send.isPending || note.isPending}
        >
          {mode === "note" ? "Add note" : replyTo ? "Send reply" : "Send"}
        </button>
      </p>
    </form>
  );
}
