"use client";

import Link from "next/link";
import { useSenderLabel } from "../_lib/sender";
import { timeAgo } from "../_lib/time";
import { useOpenHandoffs } from "../_lib/use-handoffs";

/** The inbox's top section: conversations handed to a human, longest waiting first, with the reason. */
export function NeedsHuman() {
  const { data } = useOpenHandoffs();
  const label = useSenderLabel().sender;
  const handoffs = data?.handoffs ?? [];
  if (handoffs.length === 0) return null;
  return (
    <section className="panel" data-testid="needs-human" aria-labelledby="needs-human-title" style={{ marginBottom: 16 }}>
      <h2 id="needs-human-title" style={{ marginTop: 0 }}>
        Needs a human
      </h2>
      <table>
        <tbody>
          {handoffs.map((h) => (
            <tr key={h.conversationId} data-testid="needs-human-row">
              <td>
                <Link href={`/conversations/${h.conversationId}`}>
                  <strong>{h.title ?? `Chat ${h.platformChatId}`}</strong>
                </Link>
                <div className="muted">{h.channel}</div>
              </td>
              <td style={{ maxWidth: 420 }} dir="auto">
                {h.reason ?? <span className="muted">no reason given</span>}
              </td>
              <td className="muted">{h.since ? `asked ${timeAgo(h.since)}` : ""}</td>
              <td>
                {h.state === "waiting" ? (
                  <span className="badge warn">{h.timedOutAt ? "waiting (user told: overdue)" : "waiting"}</span>
                ) : (
                  <span className="badge ok">with {label("operator", h.operator)}</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
