"use client";

import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { api, isClientError } from "../../_lib/api";
import { usePollInterval } from "../../_lib/live-events";
import type { ConversationDetail, TimelineMessage } from "../../_lib/types";

/** Messages per page: the newest page is live; older pages load as the operator scrolls up. */
export const PAGE_SIZE = 100;
/** A jump to an old message loads bigger pages, to get there in fewer round trips. */
const JUMP_PAGE_SIZE = 500;

type Older = { messages: TimelineMessage[]; nextBefore: number | null };

/**
 * A conversation's whole history, oldest first: the newest page is a query
 * (refreshed by live events, polled slowly as a fallback); older pages are
 * appended in front as they are asked for and kept. A burst of new messages
 * larger than a page is filled in, so the history never has a hole.
 */
export function useTimeline(conversationId: number) {
  const poll = usePollInterval(2_000);
  const latest = useQuery({
    queryKey: ["conversation", conversationId, "latest"],
    queryFn: () => api<ConversationDetail>(`/conversations/${conversationId}/messages?take=${PAGE_SIZE}`),
    // Not found (or not this operator's bot) stays so: no polling for it.
    refetchInterval: (query) => (isClientError(query.state.error) ? false : poll),
  });
  const [older, setOlder] = useState<Older | null>(null);
  // Mirrors `older` synchronously: a jump loads page after page without waiting for renders.
  const olderRef = useRef<Older | null>(null);
  const loading = useRef<Promise<TimelineMessage[]> | null>(null);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const put = useCallback((next: Older) => {
    olderRef.current = next;
    setOlder(next);
  }, []);

  const latestPage = latest.data;
  const messages = useMemo(() => {
    if (!latestPage) return [];
    const first = latestPage.messages[0]?.id ?? Infinity;
    const before = (older?.messages ?? []).filter((m) => m.id < first);
    return before.length ? [...before, ...latestPage.messages] : latestPage.messages;
  }, [latestPage, older]);

  const cursor = useCallback(() => (olderRef.current ? olderRef.current.nextBefore : (latestPage?.nextBefore ?? null)), [latestPage]);
  const hasMore = older ? older.nextBefore !== null : (latestPage?.nextBefore ?? null) !== null;

  /** Loads the page before the oldest loaded message; resolves with the messages it added. */
  const loadOlder = useCallback(
    (take = PAGE_SIZE): Promise<TimelineMessage[]> => {
      if (loading.current) return loading.current;
      const before = olderRef.current ? olderRef.current.nextBefore : (latestPage?.nextBefore ?? null);
      if (before === null) return Promise.resolve([]);
      setLoadingOlder(true);
      const run = api<ConversationDetail>(`/conversations/${conversationId}/messages?before=${before}&take=${take}`)
        .then((page) => {
          const known = olderRef.current?.messages ?? [];
          put({ messages: [...page.messages, ...known], nextBefore: page.nextBefore });
          setError(null);
          return page.messages;
        })
        .catch((e: Error) => {
          setError(e.message);
          return [];
        })
        .finally(() => {
          loading.current = null;
          setLoadingOlder(false);
        });
      loading.current = run;
      return run;
    },
    [conversationId, latestPage, put],
  );

  // More new messages than one page arrived between two refreshes: fetch the hole.
  useEffect(() => {
    const known = olderRef.current;
    if (!latestPage || !known || known.messages.length === 0 || latestPage.nextBefore === null) return;
    const newestKnown = known.messages.at(-1)!.id;
    const firstLatest = latestPage.messages[0]?.id;
    if (!firstLatest || firstLatest <= newestKnown) return;
    let cancelled = false;
    (async () => {
      const filled: TimelineMessage[] = [];
      let before: number | null = firstLatest;
      while (before !== null && !cancelled) {
        const page: ConversationDetail = await api<ConversationDetail>(
          `/conversations/${conversationId}/messages?before=${before}&take=${JUMP_PAGE_SIZE}`,
        );
        const fresh = page.messages.filter((m) => m.id > newestKnown);
        filled.unshift(...fresh);
        before = fresh.length === page.messages.length ? page.nextBefore : null;
      }
      if (!cancelled && olderRef.current === known) put({ messages: [...known.messages, ...filled], nextBefore: known.nextBefore });
    })().catch(() => {});
    return () => {
      cancelled = true;
    };
  }, [conversationId, latestPage, put]);

  /**
   * Makes sure a message is loaded, fetching older pages until it is or the
   * history ends. True when it is in this timeline.
   */
  const ensureLoaded = useCallback(
    async (messageId: number): Promise<boolean> => {
      const isLoaded = () =>
        (olderRef.current?.messages ?? []).some((m) => m.id === messageId) || (latestPage?.messages ?? []).some((m) => m.id === messageId);
      for (let guard = 0; guard < 10_000; guard++) {
        if (isLoaded()) return true;
        const oldest = olderRef.current?.messages[0]?.id ?? latestPage?.messages[0]?.id;
        // Ids only grow: once the oldest loaded is older than the target, it is not here.
        if (oldest !== undefined && oldest < messageId) return false;
        if (cursor() === null) return false;
        const added = await loadOlder(JUMP_PAGE_SIZE);
        if (added.length === 0 && cursor() !== null && loading.current === null) return isLoaded();
      }
      return isLoaded();
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [latestPage, loadOlder, cursor],
  );

  return {
    conversation: latestPage?.conversation ?? null,
    messages,
    isLoading: latest.isLoading,
    error: latest.isError ? latest.error.message : error,
    hasMore,
    loadingOlder,
    loadOlder,
    ensureLoaded,
  };
}
