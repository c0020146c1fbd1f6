"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { api } from "../_lib/api";
import { useSenderLabel } from "../_lib/sender";
import { Snippet } from "../_lib/snippet";
import { clock } from "../_lib/time";
import type { ConversationSummary, NoteSearchResult, SearchResult } from "../_lib/types";

/** The search's parameters as the address holds them (the API's query). */
export type SearchParams = Partial<Record<"q" | "conversationId" | "sender" | "channel" | "from" | "to", string>>;

const SENDER_KINDS = [
  ["user", "Users"],
  ["agent", "Agent"],
  ["operator", "Operators"],
  ["system", "System"],
] as const;

/** A local calendar day (yyyy-mm-dd) as the instant it starts, for the API's `from`/`to`. */
const dayStart = (day: string, plusDays = 0) => {
  const [y, m, d] = day.split("-").map(Number);
  return new Date(y!, m! - 1, d! + plusDays).toISOString();
};
/** The API's instant back as the local day a date field shows. */
const dayOf = (iso: string | undefined, minusDays = 0) => {
  if (!iso) return "";
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "";
  at.setDate(at.getDate() - minusDays);
  return `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, "0")}-${String(at.getDate()).padStart(2, "0")}`;
};

/** Search over what was said, narrowed by conversation, sender, platform and dates; each result opens its conversation at the message. */
export function SearchResults({ initial }: { initial: SearchParams }) {
  const router = useRouter();
  const [text, setText] = useState(initial.q ?? "");
  const [conversationId, setConversationId] = useState(initial.conversationId ?? "");
  const [senders, setSenders] = useState<string[]>(initial.sender ? initial.sender.split(",") : []);
  const [channel, setChannel] = useState(initial.channel ?? "");
  const [from, setFrom] = useState(dayOf(initial.from));
  // `to` is the start of the day after the last one shown.
  const [to, setTo] = useState(dayOf(initial.to, 1));
  const label = useSenderLabel().sender;
  const conversations = useQuery({
    queryKey: ["conversations", "for-search"],
    queryFn: () => api<{ conversations: ConversationSummary[] }>("/conversations?take=500"),
  });
  const query = new URLSearchParams(Object.entries(initial).filter((e): e is [string, string] => Boolean(e[1]))).toString();
  const results = useQuery({
    queryKey: ["search", query],
    queryFn: () => api<{ results: SearchResult[]; notes: NoteSearchResult[]; incomplete: boolean }>(`/search?${query}`),
    enabled: (initial.q ?? "").trim().length > 0,
  });
  type Filters = { conversationId: string; senders: string[]; channel: string; from: string; to: string };
  /** Runs the search (the address holds it); a filter changed runs it at once, with that filter's new value. */
  const submit = (changed: Partial<Filters> = {}, words = text) => {
    const f: Filters = { conversationId, senders, channel, from, to, ...changed };
    const next = new URLSearchParams({ q: words });
    if (f.conversationId) next.set("conversationId", f.conversationId);
    if (f.senders.length > 0 && f.senders.length < SENDER_KINDS.length) next.set("sender", f.senders.join(","));
    if (f.channel) next.set("channel", f.channel);
    if (f.from) next.set("from", dayStart(f.from));
    if (f.to) next.set("to", dayStart(f.to, 1));
    const href = `/search?${next.toString()}`;
    if (Object.keys(changed).length > 0) router.replace(href);
    else router.push(href);
  };
  /** A filter takes effect as it is changed, once there are words to search for. */
  const applyFilter = (changed: Partial<Filters>) => {
    if (text.trim()) submit(changed);
  };
  const narrowed = Boolean(initial.conversationId || initial.sender || initial.channel || initial.from || initial.to);
  return (
    <>
      <h1>Search messages</h1>
      <form
        role="search"
        className="search-form"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <div className="row">
          <input
            aria-label="Search message text"
            type="search"
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="Words from a message, or their beginnings"
            style={{ maxWidth: 520 }}
          />
          <button type="submit" className="primary">
            Search
          </button>
        </div>
        <fieldset className="row search-filters">
          <legend className="muted">Narrow to</legend>
          <label>
            Conversation{" "}
            <select
              value={conversationId}
              onChange={(e) => {
                setConversationId(e.target.value);
                applyFilter({ conversationId: e.target.value });
              }}
            >
              <option value="">All conversations</option>
              {conversations.data?.conversations.map((c) => (
                <option key={c.id} value={String(c.id)}>
                  {c.topicName ? `${c.title ?? `Conversation ${c.id}`} › ${c.topicName}` : (c.title ?? `Conversation ${c.id}`)}
                </option>
              ))}
            </select>
          </label>
          <span role="group" aria-label="Sender">
            {SENDER_KINDS.map(([kind, name]) => (
              <label key={kind}>
                <input
                  type="checkbox"
                  checked={senders.includes(kind)}
                  onChange={(e) => {
                    const next = e.target.checked ? [...senders, kind] : senders.filter((s) => s !== kind);
                    setSenders(next);
                    applyFilter({ senders: next });
                  }}
                />{" "}
                {name}
              </label>
            ))}
          </span>
          <label>
            Platform{" "}
            <select
              value={channel}
              onChange={(e) => {
                setChannel(e.target.value);
                applyFilter({ channel: e.target.value });
              }}
            >
              <option value="">Any</option>
              <option value="telegram">Telegram</option>
              <option value="line">LINE</option>
            </select>
          </label>
          <label>
            From{" "}
            <input
              type="date"
              value={from}
              onChange={(e) => {
                setFrom(e.target.value);
                applyFilter({ from: e.target.value });
              }}
            />
          </label>
          <label>
            To{" "}
            <input
              type="date"
              value={to}
              onChange={(e) => {
                setTo(e.target.value);
                applyFilter({ to: e.target.value });
              }}
            />
          </label>
        </fieldset>
      </form>
      {results.isLoading && <p className="muted">Searching…</p>}
      {results.isError && (
        <p className="error" role="alert">
          Search failed: {results.error.message}
        </p>
      )}
      {results.data?.incomplete && (
        <p className="search-stopped" role="status">
          The search stopped at its time limit: messages may be missing below. Narrow it by conversation, sender or dates.
        </p>
      )}
      {results.data && results.data.results.length === 0 && results.data.notes.length === 0 && !results.data.incomplete && (
        <p className="muted">
          No message matches “{initial.q}”{narrowed ? " with these filters" : ""}.
        </p>
      )}
      {results.data && results.data.results.length > 0 && (
        <ReplayResults messageIds={results.data.results.map((r) => r.messageId)} query={initial.q ?? ""} />
      )}
      {results.data && results.data.results.length > 0 && (
        <ol className="search-results" data-testid="search-results">
          {results.data.results.map((r) => (
            <li key={r.messageId} data-testid="search-result">
              <Link href={`/conversations/${r.conversationId}?message=${r.messageId}`}>
                <span className="muted">
                  {r.conversationTitle ?? `Conversation ${r.conversationId}`} ({r.channel.startsWith("line") ? "LINE" : "Telegram"}) ·{" "}
                  {label(r.senderKind, r.senderName)} · <time dateTime={r.sentAt}>{clock(r.sentAt)}</time>
                </span>
                {r.deletedAt && <span className="badge warn">unsent</span>}
                <span className="snippet" dir="auto">
                  <Snippet markup={r.snippet} />
                </span>
                {r.attachments.length > 0 && (
                  <span className="muted" data-testid="search-result-files">
                    {" "}
                    📎 {r.attachments.map((a) => a.fileName ?? a.kind.replace("_", " ")).join(", ")}
                  </span>
                )}
              </Link>
            </li>
          ))}
        </ol>
      )}
      {results.data && results.data.notes.length > 0 && (
        <section aria-label="Matching notes">
          <h2>Internal notes</h2>
          <ol className="search-results" data-testid="note-results">
            {results.data.notes.map((n) => (
              <li key={`note-${n.noteId}`} data-testid="note-result" className="note-hit">
                <Link href={`/conversations/${n.conversationId}`}>
                  <span className="muted">
                    {n.conversationTitle ?? `Conversation ${n.conversationId}`} ({n.channel === "line" ? "LINE" : "Telegram"}) ·{" "}
                    <span className="badge warn">internal note</span> by {label("operator", n.operatorName)} ·{" "}
                    <time dateTime={n.createdAt}>{clock(n.createdAt)}</time>
                  </span>
                  <span className="snippet" dir="auto">
                    <Snippet markup={n.snippet} />
                  </span>
                </Link>
              </li>
            ))}
          </ol>
        </section>
      )}
    </>
  );
}

/** "Replay these turns…": a replay dataset of the turns behind the results, opened on the Replays page. */
function ReplayResults({ messageIds, query }: { messageIds: number[]; query: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function create() {
    setBusy(true);
    setError(null);
    try {
      const { dataset } = await api<{ dataset: { id: number } }>("/datasets", {
        method: "POST",
        body: { name: `search: ${query}`.slice(0, 200), messageIds },
      });
      router.push(`/replays?dataset=${dataset.id}`);
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  }
  return (
    <p className="row">
      <button type="button" onClick={create} disabled={busy}>
        Replay these turns…
      </button>
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </p>
  );
}
