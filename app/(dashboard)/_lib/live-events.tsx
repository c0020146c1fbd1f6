"use client";

import type { z } from "zod";
import type { liveEvent } from "@/lib/api/live";
import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useEffect, useSyncExternalStore } from "react";
import { isClientError } from "./api";

/** An event from GET /api/v1/events (lib/events/bus.ts LiveEvent). */
export type LiveEvent = z.output<typeof liveEvent>;

// Whether the stream is open, for polling intervals: a module store read with useSyncExternalStore.
let connected = false;
const watchers = new Set<() => void>();
function setConnected(value: boolean) {
  if (connected === value) return;
  connected = value;
  for (const watch of watchers) watch();
}
const subscribe = (watch: () => void) => {
  watchers.add(watch);
  return () => watchers.delete(watch);
};

/** True while the event stream is open; pages then poll only as a slow fallback. */
export function useLiveConnected(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => connected,
    () => false,
  );
}

/** A polling interval: `fast` without the stream, `slow` while it is open. */
export function usePollInterval(fast: number, slow = 30_000): number {
  return useLiveConnected() ? slow : fast;
}

/**
 * Marks the queries under `queryKey` (all of them without one) stale, and active ones
 * refetch. TanStack does not restart a first load already in flight (it hands back that
 * load's promise), and that load may have read before the change: such a query is
 * invalidated again once its load lands, or the page would show the older state until
 * the next change. A query the server answered with a 4xx is left as it is.
 */
export function invalidateNow(client: QueryClient, queryKey?: unknown[]) {
  const cache = client.getQueryCache();
  for (const query of cache.findAll(queryKey ? { queryKey } : {})) {
    if (query.state.fetchStatus !== "fetching" || query.state.data !== undefined || awaitingFirstLoad.has(query)) continue;
    awaitingFirstLoad.add(query);
    const unsubscribe = cache.subscribe((change) => {
      if (change.query !== query || (change.type !== "removed" && query.state.fetchStatus === "fetching")) return;
      unsubscribe();
      awaitingFirstLoad.delete(query);
      // A first load the server refused stays refused here too (it landed after the event, as a 404 or 403).
      if (change.type !== "removed" && !isClientError(query.state.error))
        void client.invalidateQueries({ queryKey: query.queryKey, exact: true });
    });
  }
  // A query the server refused (404 unknown, 403 not yours) stays refused: an event elsewhere does not ask again.
  void client.invalidateQueries({ ...(queryKey ? { queryKey } : {}), predicate: (query) => !isClientError(query.state.error) });
}

/** Queries already waiting for their first load to land (several events during one load read again once). */
const awaitingFirstLoad = new WeakSet<object>();

/** Which TanStack queries an event makes stale (prefix keys; only active ones refetch). */
export function invalidateFor(client: QueryClient, event: LiveEvent) {
  const invalidate = (queryKey: unknown[]) => invalidateNow(client, queryKey);
  switch (event.type) {
    case "message":
      invalidate(event.conversationId ? ["conversation", event.conversationId] : ["conversation"]);
      invalidate(["conversations"]);
      invalidate(["thread"]);
      invalidate(["stats"]);
      break;
    case "envelope":
      invalidate(["conversation"]);
      invalidate(["envelopes"]);
      invalidate(["envelope"]);
      invalidate(["envelope-thread"]);
      invalidate(["queue"]);
      invalidate(["thread"]);
      // A turn ends with its envelope: its tokens and cost are in.
      invalidate(["usage"]);
      break;
    case "fork":
      invalidate(["forks"]);
      invalidate(event.conversationId ? ["conversation", event.conversationId] : ["conversation"]);
      invalidate(["conversations"]);
      break;
    case "conversation":
      invalidate(["conversation"]);
      invalidate(["conversations"]);
      // A label defined, renamed or deleted is announced as a conversation event without an id.
      if (!event.conversationId) invalidate(["labels"]);
      break;
    case "settings":
      invalidate(["settings"]);
      invalidate(["status"]);
      invalidate(["queue-limits"]);
      invalidate(["operators"]);
      break;
    case "operators":
      // A session ended or a role changed: these reads answer 401 (to the sign-in page) or show the new state.
      invalidate(["operators"]);
      invalidate(["account-sessions"]);
      break;
  }
}

/**
 * Listens to the server's events once per dashboard and refreshes what they
 * touch. EventSource reconnects by itself (the server's `retry:`); a page also
 * refetches whenever the stream opens, the first time too, since events sent before
 * it opened or while it was away are not replayed.
 */
export function LiveEvents() {
  const client = useQueryClient();
  useEffect(() => {
    if (typeof EventSource === "undefined") return;
    const source = new EventSource("/api/v1/events");
    source.onopen = () => {
      // Events are not replayed: a change committed after this page's first reads but
      // before the stream opened (or while it was away) reached nobody here. Read again.
      invalidateNow(client);
      setConnected(true);
    };
    source.onerror = () => setConnected(false);
    const onEvent = (message: MessageEvent<string>) => {
      try {
        invalidateFor(client, JSON.parse(message.data) as LiveEvent);
      } catch {
        // A malformed frame changes nothing.
      }
    };
    for (const type of ["message", "envelope", "fork", "settings", "conversation", "operators"])
      source.addEventListener(type, onEvent as EventListener);
    return () => {
      source.close();
      setConnected(false);
    };
  }, [client]);
  return null;
}
