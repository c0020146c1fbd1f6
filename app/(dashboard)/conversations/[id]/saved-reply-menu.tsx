"use client";

import { useQuery } from "@tanstack/react-query";
import { api } from "../../_lib/api";
import type { SavedReply } from "../../_lib/types";

/** The composer's text is a `/shortcut` being typed: its search term, else null. */
export function savedReplyTerm(text: string): string | null {
  const match = /^\/(\S{0,32})$/.exec(text);
  return match ? match[1]! : null;
}

/** The saved replies matching what follows the `/`, each filled for this conversation's user. */
export function useSavedReplyMatches(conversationId: number, term: string | null) {
  return useQuery({
    queryKey: ["saved-replies", conversationId, term],
    queryFn: () =>
      api<{ savedReplies: SavedReply[] }>(`/saved-replies?conversationId=${conversationId}&search=${encodeURIComponent(term ?? "")}`),
    enabled: term !== null,
    staleTime: 10_000,
  });
}

/** The list under the composer while a `/shortcut` is typed: arrows move, Enter or Tab inserts, Escape closes. */
export function SavedReplyMenu({
  replies,
  selected,
  onPick,
}: {
  replies: SavedReply[];
  selected: number;
  onPick: (reply: SavedReply) => void;
}) {
  if (replies.length === 0) return null;
  return (
    <div className="saved-reply-menu" role="listbox" aria-label="Saved replies" data-testid="saved-reply-menu">
      {replies.map((r, i) => (
        // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard works from the text box (arrows, Enter, Tab), which keeps the focus.
        <div
          key={r.id}
          role="option"
          tabIndex={-1}
          aria-selected={i === selected}
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => onPick(r)}
        >
          <strong>/{r.shortcut}</strong> <span className="muted">{r.scope === "personal" ? "(mine) " : ""}</span>
          {(r.expanded ?? r.text).slice(0, 100)}
        </div>
      ))}
    </div>
  );
}
