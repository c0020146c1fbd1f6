"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useSyncExternalStore } from "react";
import type { ConversationPatch } from "@/lib/pipeline/conversation-status";
import { api } from "./api";
import { usePollInterval } from "./live-events";
import type { ConversationList } from "./types";

export type InboxView = "mine" | "unassigned" | "handoff" | "open" | "snoozed" | "resolved" | "all";
export type InboxSort = "activity" | "waiting";

/** The views in the order the inbox shows them. */
export const INBOX_VIEWS: { view: InboxView; label: string }[] = [
  { view: "mine", label: "Mine" },
  { view: "unassigned", label: "Unassigned" },
  { view: "handoff", label: "Needs a human" },
  { view: "open", label: "All open" },
  { view: "snoozed", label: "Snoozed" },
  { view: "resolved", label: "Resolved" },
  { view: "all", label: "All" },
];

const KEY = "switchboard.inbox";
const DEFAULT = { view: "open" as InboxView, sort: "activity" as InboxSort };
const listeners = new Set<() => void>();
let cached: { raw: string | null; value: typeof DEFAULT } = { raw: null, value: DEFAULT };

function read(): typeof DEFAULT {
  const raw = typeof window === "undefined" ? null : window.localStorage.getItem(KEY);
  if (raw === cached.raw) return cached.value;
  let value = DEFAULT;
  try {
    const parsed = raw ? (JSON.parse(raw) as Partial<typeof DEFAULT>) : {};
    value = {
      view: INBOX_VIEWS.some((v) => v.view === parsed.view) ? parsed.view! : DEFAULT.view,
      sort: parsed.sort === "waiting" ? "waiting" : "activity",
    };
  } catch {}
  cached = { raw, value };
  return value;
}

/**
 * The inbox view and sort the operator chose, kept in this browser (the list and
 * the conversation page's next/previous read the same one).
 */
export function useInboxChoice() {
  const choice = useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    read,
    () => DEFAULT,
  );
  const set = useCallback((next: Partial<typeof DEFAULT>) => {
    window.localStorage.setItem(KEY, JSON.stringify({ ...read(), ...next }));
    for (const listener of listeners) listener();
  }, []);
  return { ...choice, set };
}

/** One inbox view's conversations with every view's count (GET /conversations). */
export function useInboxList(view: InboxView, sort: InboxSort, search = "", botId: number | null = null) {
  const poll = usePollInterval(3_000);
  return useQuery({
    queryKey: ["conversations", view, sort, search, botId],
    queryFn: () =>
      api<ConversationList>(
        `/conversations?view=${view}&sort=${sort}&search=${encodeURIComponent(search)}&take=200${botId ? `&botId=${botId}` : ""}`,
      ),
    // Polling is the fallback: with the event stream open, events refetch this (usePollInterval).
    refetchInterval: poll,
  });
}

/** PATCH /conversations/{id}: status, snooze, assignee; a 409 (someone else changed it) is the mutation's error. */
export function useConversationChange(conversationId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ConversationPatch) => api(`/conversations/${conversationId}`, { method: "PATCH", body }),
    onSettled: () => {
      void client.invalidateQueries({ queryKey: ["conversation", conversationId] });
      void client.invalidateQueries({ queryKey: ["conversation-handoff", conversationId] });
      void client.invalidateQueries({ queryKey: ["conversations"] });
      void client.invalidateQueries({ queryKey: ["handoffs"] });
    },
  });
}
