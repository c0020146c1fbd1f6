"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { api } from "../../_lib/api";
import { useSenderLabel } from "../../_lib/sender";
import { timeAgo } from "../../_lib/time";
import type { ContactInfo } from "../../_lib/types";
import { ConversationLabels } from "./conversation-labels";

/** Who the conversation is with, from their stored messages, their other conversations, its labels, and the operators' notes. */
export function ContactPanel({ conversationId }: { conversationId: number }) {
  const label = useSenderLabel().sender;
  const query = useQuery({
    // Under ["conversation", id]: message and conversation events refetch it.
    queryKey: ["conversation", conversationId, "contact"],
    queryFn: () => api<ContactInfo>(`/conversations/${conversationId}/contact`),
  });
  if (!query.data)
    return (
      <aside className="panel contact-panel muted">
        {query.isError ? `Could not load the contact: ${query.error.message}` : "Loading…"}
      </aside>
    );
  const { contact, notes } = query.data;
  return (
    <aside className="panel contact-panel" data-testid="contact-panel" aria-label="Contact">
      <h2 style={{ marginTop: 0 }}>Contact</h2>
      {contact ? (
        <>
          <dl>
            <dt>Name</dt>
            <dd data-testid="contact-name">{contact.name ?? "—"}</dd>
            <dt>Username</dt>
            <dd>{contact.username ? `@${contact.username}` : "—"}</dd>
            <dt>{contact.channel} id</dt>
            <dd>{contact.platformUserId}</dd>
            <dt>Language</dt>
            <dd>{contact.language ?? "—"}</dd>
            <dt>First seen</dt>
            <dd>{contact.firstSeen ? new Date(contact.firstSeen).toLocaleString() : "—"}</dd>
            <dt>Last seen</dt>
            <dd>{contact.lastSeen ? timeAgo(contact.lastSeen) : "—"}</dd>
          </dl>
          <h2>Other conversations</h2>
          {contact.otherConversations.length === 0 ? (
            <p className="muted">None.</p>
          ) : (
            <ul data-testid="contact-conversations">
              {contact.otherConversations.map((c) => (
                <li key={c.id}>
                  <Link href={`/conversations/${c.id}`}>{c.title ?? `Chat ${c.platformChatId}`}</Link>
                  {c.topicName ? ` › ${c.topicName}` : ""}{" "}
                  <span className="muted">
                    {c.type} · {c.messages} message{c.messages === 1 ? "" : "s"} · {c.status}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </>
      ) : (
        <p className="muted">No user has written here yet.</p>
      )}
      <ConversationLabels conversationId={conversationId} />
      <h2>Notes</h2>
      {notes.length === 0 ? (
        <p className="muted">No notes. Write one with “Note” under the timeline.</p>
      ) : (
        <ul data-testid="contact-notes">
          {notes.map((n) => (
            <li key={n.id}>
              {n.text}{" "}
              <span className="muted">
                — {label("operator", n.operatorName)}, {timeAgo(n.createdAt)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}
