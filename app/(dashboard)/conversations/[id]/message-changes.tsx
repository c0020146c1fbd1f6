"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../../_lib/api";
import type { TimelineMessage } from "../../_lib/types";

/**
 * Whether the console offers Edit and Delete on a message: the agent's answers and
 * operators' messages that went out, in a Telegram conversation (LINE cannot change a
 * sent message; the server refuses it too, with a 409).
 */
export function canChange(m: TimelineMessage, channel: string | undefined): boolean {
  return (
    m.id > 0 &&
    !m.deletedAt &&
    (m.senderKind === "agent" || m.senderKind === "operator") &&
    m.platformMessageId !== null &&
    (channel ?? "").startsWith("telegram")
  );
}

/** The edit and the deletion of one message; either refetches the conversation once it is done. */
function useMessageChange(m: TimelineMessage) {
  const client = useQueryClient();
  const onSuccess = () => client.invalidateQueries({ queryKey: ["conversation", m.conversationId] });
  const edit = useMutation({ mutationFn: (text: string) => api(`/messages/${m.id}`, { method: "PATCH", body: { text } }), onSuccess });
  const remove = useMutation({ mutationFn: () => api(`/messages/${m.id}`, { method: "DELETE" }), onSuccess });
  return { edit, remove };
}

/** The message's text in a box: Enter saves (Shift+Enter a new line), Escape cancels. */
export function EditBox({ m, onClose }: { m: TimelineMessage; onClose: () => void }) {
  const [text, setText] = useState(m.text);
  const { edit } = useMessageChange(m);
  const save = () => {
    if (edit.isPending || !text.trim()) return;
    edit.mutate(text, { onSuccess: onClose });
  };
  return (
    <div className="edit-box" data-testid="edit-box">
      <textarea
        aria-label="Edit message"
        // biome-ignore lint/a11y/noAutofocus: the box opens on the operator's own click, to type in at once.
        autoFocus
        rows={Math.min(8, text.split("\n").length + 1)}
        value={text}
        dir="auto"
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey) {
            e.preventDefault();
            save();
          } else if (e.key === "Escape") {
            e.preventDefault();
            onClose();
          }
        }}
      />
      <div className="muted">{edit.isPending ? "Saving…" : "Enter saves · Escape cancels"}</div>
      {edit.error && (
        <p className="error" role="alert">
          {edit.error.message}
        </p>
      )}
    </div>
  );
}

/** Asks once before taking the message back from the chat (the history keeps it, marked deleted). */
export function DeleteConfirm({ m, onClose }: { m: TimelineMessage; onClose: () => void }) {
  const { remove } = useMessageChange(m);
  return (
    <div className="row" role="group" aria-label="Confirm deletion" data-testid="delete-confirm">
      <span>Delete this message from the Telegram chat? The history keeps it.</span>
      <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate(undefined, { onSuccess: onClose })}>
        Delete from chat
      </button>
      <button type="button" onClick={onClose}>
        Cancel
      </button>
      {remove.error && (
        <p className="error" role="alert">
          {remove.error.message}
        </p>
      )}
    </div>
  );
}

/** Whether the console offers Regenerate: the agent's delivered answer that a turn wrote (any platform: LINE gets a new message). */
export function canRegenerate(m: TimelineMessage): boolean {
  return m.id > 0 && !m.deletedAt && m.senderKind === "agent" && m.platformMessageId !== null && m.turnId !== null;
}

/**
 * Regenerate: the turn run again with today's settings and the new answer sent (edited in
 * place on Telegram, else a new message). Disabled while it runs (the server refuses a
 * second one too); the timeline refetches once it is done.
 */
export function RegenerateButton({ m }: { m: TimelineMessage }) {
  const client = useQueryClient();
  const regenerate = useMutation({
    mutationFn: () => api<{ mode: "edited" | "sent" }>(`/messages/${m.id}/regenerate`, { method: "POST" }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["conversation", m.conversationId] }),
  });
  return (
    <>
      <button
        type="button"
        disabled={regenerate.isPending}
        aria-busy={regenerate.isPending}
        onClick={() => regenerate.mutate()}
        aria-label={`Regenerate message ${m.id}`}
        data-testid="regenerate"
      >
        {regenerate.isPending ? "Regenerating…" : "Regenerate"}
      </button>
      {regenerate.data?.mode === "sent" && (
        <span className="muted" data-testid="regenerate-result">
          could not be edited: sent as a new message
        </span>
      )}
      {regenerate.error && (
        <span className="error" role="alert">
          {regenerate.error.message}
        </span>
      )}
    </>
  );
}
