"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { api } from "../_lib/api";
import { useSenderLabel } from "../_lib/sender";
import { Snippet } from "../_lib/snippet";
import { clock } from "../_lib/time";
import type { SearchResult } from "../_lib/types";

type Result = SearchResult;

/** Full-text search over what was said; each result opens its conversation's timeline at the message. */
export function SearchResults({ initial }: { initial: string }) {
  const router = useRouter();
  const [text, setText] = useState(initial);
  const label = useSenderLabel().sender;
  const query = useQuery({
    queryKey: ["search", initial],
    queryFn: () => api<{ results: Result[] }>(`/search?q=${encodeURIComponent(initial)}`),
    enabled: initial.trim().length > 0,
  });
  return (
    <>
      <h1>Search messages</h1>
      <form
        role="search"
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          router.push(`/search?q=${encodeURIComponent(text)}`);
        }}
      >
        <input
          aria-label="Search message text"
          type="search"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="Words from a message"
          style={{ maxWidth: 520 }}
        />
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      {query.isLoading && <p className="muted">Searching…</p>}
      {query.isError && (
        <p className="error" role="alert">
          Search failed: {query.error.message}
        </p>
      )}
      {query.data && query.data.results.length === 0 && <p className="muted">No message matches “{initial}”.</p>}
      {query.data && query.data.results.length > 0 && (
        <ol className="search-results" data-testid="search-results">
          {query.data.results.map((r) => (
            <li key={r.messageId} data-testid="search-result">
              <Link href={`/conversations/${r.conversationId}?message=${r.messageId}`}>
                <span className="muted">
                  {r.conversationTitle ?? `Conversation ${r.conversationId}`} · {label(r.senderKind, r.senderName)} · {clock(r.sentAt)}
                </span>
                {r.deletedAt && <span className="badge warn">unsent</span>}
                <span className="snippet" dir="auto">
                  <Snippet markup={r.snippet} />
                </span>
              </Link>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
