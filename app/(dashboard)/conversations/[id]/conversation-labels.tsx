"use client";

import { useQuery } from "@tanstack/react-query";
import { api } from "../../_lib/api";
import { LabelChip, useLabels } from "../../_lib/labels";
import { useConversationChange } from "../../_lib/use-inbox";

/**
 * The conversation's labels in the contact panel, and the checkboxes that put
 * them on or take them off (any operator who sees the conversation; admins define
 * the labels on the Labels page). The server records each change in the history.
 */
export function ConversationLabels({ conversationId }: { conversationId: number }) {
  const labels = useLabels();
  const current = useQuery({
    // Under ["conversation", id]: conversation events (a change by anyone) refetch it.
    queryKey: ["conversation", conversationId, "labels"],
    queryFn: () => api<{ conversation: { labels: string[] } }>(`/conversations/${conversationId}`),
  });
  const change = useConversationChange(conversationId);
  const names = current.data?.conversation.labels ?? [];
  const all = labels.data?.labels ?? [];
  const toggle = (name: string, on: boolean) =>
    change.mutate({ labels: on ? [...names, name] : names.filter((n) => n.toLowerCase() !== name.toLowerCase()) });
  return (
    <section data-testid="contact-labels">
      <h2>Labels</h2>
      {names.length === 0 ? (
        <p className="muted">No labels.</p>
      ) : (
        <p>
          {names.map((name) => (
            <LabelChip key={name} name={name} color={all.find((l) => l.name === name)?.color} />
          ))}
        </p>
      )}
      {all.length > 0 ? (
        <details>
          <summary>Edit labels</summary>
          <div data-testid="label-picker">
            {all.map((l) => (
              <label key={l.id} className="row" style={{ gap: 6 }}>
                <input
                  type="checkbox"
                  checked={names.some((n) => n.toLowerCase() === l.name.toLowerCase())}
                  disabled={change.isPending || !current.data}
                  onChange={(e) => toggle(l.name, e.target.checked)}
                />
                <LabelChip name={l.name} color={l.color} />
              </label>
            ))}
          </div>
        </details>
      ) : (
        <p className="muted">No labels defined yet (admins add them on the Labels page).</p>
      )}
      {change.isError && (
        <p className="error" role="alert">
          {change.error.message}
        </p>
      )}
    </section>
  );
}
