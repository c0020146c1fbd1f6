"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../_lib/api";
import { type Label, LabelChip, useLabels } from "../_lib/labels";
import { useOperators } from "../_lib/sender";

const DEFAULT_COLOR = "#6b7280";

/** One label's form: new (label null) or a rename / recolor. */
function LabelForm({ label, onDone }: { label: Label | null; onDone: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState(label?.name ?? "");
  const [color, setColor] = useState(label?.color ?? DEFAULT_COLOR);
  const save = useMutation({
    mutationFn: () =>
      label === null
        ? api("/labels", { method: "POST", body: { name, color } })
        : api(`/labels/${label.id}`, { method: "PATCH", body: { name, color } }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ["labels"] });
      void client.invalidateQueries({ queryKey: ["conversations"] });
      setName("");
      setColor(DEFAULT_COLOR);
      onDone();
    },
  });
  return (
    <form
      className="row"
      data-testid={label === null ? "label-new" : "label-edit"}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
      style={{ marginBottom: 12 }}
    >
      <input
        aria-label="Label name"
        value={name}
        maxLength={40}
        onChange={(e) => setName(e.target.value)}
        placeholder="e.g. billing"
        style={{ maxWidth: 240 }}
      />
      <input aria-label="Label color" type="color" value={color} onChange={(e) => setColor(e.target.value)} style={{ width: 48 }} />
      <button className="primary" type="submit" disabled={save.isPending || !name.trim()}>
        {label === null ? "Add label" : "Save"}
      </button>
      {label !== null && (
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      )}
      {save.isError && (
        <span className="error" role="alert">
          {save.error.message}
        </span>
      )}
    </form>
  );
}

/** The labels page: everyone sees the labels; admins add, rename, recolor and delete them. */
export function LabelsConsole() {
  const client = useQueryClient();
  const labels = useLabels();
  const team = useOperators().data;
  const admin = team?.operators.find((o) => o.id === team.me)?.role === "admin";
  const [editing, setEditing] = useState<number | null>(null);
  const remove = useMutation({
    mutationFn: (id: number) => api(`/labels/${id}`, { method: "DELETE" }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ["labels"] });
      void client.invalidateQueries({ queryKey: ["conversations"] });
    },
  });
  const list = labels.data?.labels ?? [];
  return (
    <>
      <h1>Labels</h1>
      <p className="muted">
        Operators put labels on a conversation in its contact panel; the conversation list filters by them.
        {admin ? "" : " Only admins add, rename or delete labels."}
      </p>
      {admin && <LabelForm label={null} onDone={() => {}} />}
      {labels.isError && (
        <p className="error" role="alert">
          Could not load labels: {labels.error.message}
        </p>
      )}
      {remove.isError && (
        <p className="error" role="alert">
          {remove.error.message}
        </p>
      )}
      {list.length === 0 ? (
        <div className="panel muted">No labels yet.</div>
      ) : (
        <table>
          <tbody>
            {list.map((l) => (
              <tr key={l.id} data-testid="label-row">
                {editing === l.id ? (
                  <td colSpan={2}>
                    <LabelForm label={l} onDone={() => setEditing(null)} />
                  </td>
                ) : (
                  <>
                    <td>
                      <LabelChip name={l.name} color={l.color} />
                    </td>
                    <td className="row">
                      {admin && (
                        <>
                          <button type="button" onClick={() => setEditing(l.id)}>
                            Edit
                          </button>
                          <button
                            type="button"
                            disabled={remove.isPending}
                            onClick={() => {
                              if (window.confirm(`Delete the label “${l.name}”? It leaves every conversation.`)) remove.mutate(l.id);
                            }}
                          >
                            Delete
                          </button>
                        </>
                      )}
                    </td>
                  </>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
