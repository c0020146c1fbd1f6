"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../_lib/api";
import type { SavedReply } from "../_lib/types";

type Draft = { shortcut: string; text: string; scope: "team" | "personal" };
const EMPTY: Draft = { shortcut: "", text: "", scope: "team" };

/** One saved reply's form: new (id null) or an edit. */
function ReplyForm({ id, initial, onDone }: { id: number | null; initial: Draft; onDone: () => void }) {
  const client = useQueryClient();
  const [draft, setDraft] = useState(initial);
  const save = useMutation({
    mutationFn: () =>
      id === null ? api("/saved-replies", { method: "POST", body: draft }) : api(`/saved-replies/${id}`, { method: "PATCH", body: draft }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ["saved-replies"] });
      setDraft(EMPTY);
      onDone();
    },
  });
  return (
    <form
      className="panel"
      style={{ maxWidth: 720, marginBottom: 12 }}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
      data-testid={id === null ? "saved-reply-new" : "saved-reply-edit"}
    >
      <div className="row">
        <label>
          Shortcut{" "}
          <input
            aria-label="Shortcut"
            value={draft.shortcut}
            onChange={(e) => setDraft({ ...draft, shortcut: e.target.value })}
            placeholder="e.g. shipping"
            style={{ maxWidth: 200 }}
          />
        </label>
        <label>
          For{" "}
          <select
            aria-label="For"
            value={draft.scope}
            onChange={(e) => setDraft({ ...draft, scope: e.target.value === "personal" ? "personal" : "team" })}
            style={{ maxWidth: 160 }}
          >
            <option value="team">the team</option>
            <option value="personal">me only</option>
          </select>
        </label>
      </div>
      <label htmlFor={`saved-reply-text-${id ?? "new"}`}>Text</label>
      <textarea
        id={`saved-reply-text-${id ?? "new"}`}
        aria-label="Text"
        rows={3}
        value={draft.text}
        onChange={(e) => setDraft({ ...draft, text: e.target.value })}
        placeholder="Hi {{first_name}}, parcels arrive within 3 working days."
      />
      <p className="muted">
        Placeholders: <code>{"{{first_name}}"}</code> and <code>{"{{name}}"}</code>, filled with the user's name when inserted.
      </p>
      <div className="row">
        <button className="primary" type="submit" disabled={save.isPending || !draft.shortcut.trim() || !draft.text.trim()}>
          {id === null ? "Save reply" : "Save changes"}
        </button>
        {id !== null && (
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        )}
        {save.isError && (
          <span className="error" role="alert">
            {save.error.message}
          </span>
        )}
      </div>
    </form>
  );
}

/** The saved replies page: the team's and the operator's own, typed as /shortcut in the composer. */
export function SavedReplies() {
  const client = useQueryClient();
  const [editing, setEditing] = useState<number | null>(null);
  const list = useQuery({ queryKey: ["saved-replies"], queryFn: () => api<{ savedReplies: SavedReply[] }>("/saved-replies") });
  const remove = useMutation({
    mutationFn: (id: number) => api(`/saved-replies/${id}`, { method: "DELETE" }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["saved-replies"] }),
  });
  const replies = list.data?.savedReplies ?? [];
  return (
    <>
      <h1>Saved replies</h1>
      <p className="muted">
        Type <kbd>/</kbd> and the shortcut in a conversation's message box to insert one.
      </p>
      <ReplyForm id={null} initial={EMPTY} onDone={() => {}} />
      {list.isError && (
        <p className="error" role="alert">
          Could not load saved replies: {list.error.message}
        </p>
      )}
      {replies.length === 0 ? (
        <div className="panel muted">No saved replies yet.</div>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Shortcut</th>
              <th>Text</th>
              <th>For</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {replies.map((r) =>
              editing === r.id ? (
                <tr key={r.id}>
                  <td colSpan={4}>
                    <ReplyForm id={r.id} initial={{ shortcut: r.shortcut, text: r.text, scope: r.scope }} onDone={() => setEditing(null)} />
                  </td>
                </tr>
              ) : (
                <tr key={r.id} data-testid="saved-reply-row">
                  <td>
                    <strong>/{r.shortcut}</strong>
                  </td>
                  <td style={{ whiteSpace: "pre-wrap" }}>{r.text}</td>
                  <td className="muted">{r.scope === "team" ? "team" : "me only"}</td>
                  <td className="row">
                    <button type="button" onClick={() => setEditing(r.id)}>
                      Edit
                    </button>
                    <button type="button" disabled={remove.isPending} onClick={() => remove.mutate(r.id)}>
                      Delete
                    </button>
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      )}
    </>
  );
}
