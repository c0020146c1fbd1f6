"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useSyncExternalStore } from "react";
import type { ConversationPatch } from "@/lib/pipeline/conversation-status";
import { api } from "./api";
import { usePollInterval } from "./live-events";
import type { ConversationList } from "./types";

export type InboxView = "mine" | "unassigned" | "handoff" | "open" | "snoozed" | "resolved" | "all";
export type InboxSort = "activity" | "waiting" | "priority";
const SORTS: InboxSort[] = ["activity", "waiting", "priority"];
const PRIORITY_FILTERS = ["none", "low", "medium", "high", "urgent"] as const;

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
      sort: SORTS.includes(parsed.sort as InboxSort) ? parsed.sort! : "activity",
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

/** The list's filters besides the view: the bot, a label (by name) and a priority. */
export type InboxFilters = { botId?: number | null; label?: string | null; priority?: string | null };

/** The query string of a list (GET /conversations and its CSV export) for these choices. */
export function inboxQuery(view: InboxView, sort: InboxSort, search: string, filters: InboxFilters) {
  const query = new URLSearchParams({ view, sort, search });
  if (filters.botId) query.set("botId", String(filters.botId));
  if (filters.label) query.set("label", filters.label);
  if (filters.priority) query.set("priority", filters.priority);
  return query.toString();
}

/**
 * The inbox choice as the list shows it: the address's filters (?label=, ?priority=,
 * ?view=, ?sort=, ?botId=) over the choice kept in this browser, so a filtered list
 * ("urgent, unassigned, label billing") is a link that survives a reload. Once the
 * address holds a filter, every change is written there too.
 */
export function useInboxFilters() {
  const stored = useInboxChoice();
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const urlView = INBOX_VIEWS.find((v) => v.view === params.get("view"))?.view;
  const urlSort = SORTS.find((s) => s === params.get("sort"));
  const priority = PRIORITY_FILTERS.find((p) => p === params.get("priority")) ?? null;
  const filters = { botId: Number(params.get("botId")) || null, label: params.get("label") || null, priority };
  const view = urlView ?? stored.view;
  const sort = urlSort ?? stored.sort;
  const inUrl = Boolean(urlView || urlSort || filters.label || filters.priority);
  const set = useCallback(
    (next: { view?: InboxView; sort?: InboxSort; label?: string | null; priority?: string | null; botId?: number | null }) => {
      if (next.view || next.sort) stored.set({ ...(next.view ? { view: next.view } : {}), ...(next.sort ? { sort: next.sort } : {}) });
      const filtering = "label" in next || "priority" in next;
      if (!inUrl && !filtering && !("botId" in next)) return;
      const query = new URLSearchParams(params.toString());
      const put = (key: string, value: string | number | null | undefined) => (value ? query.set(key, String(value)) : query.delete(key));
      if (inUrl || filtering) {
        put("view", next.view ?? view);
        put("sort", next.sort ?? sort);
      }
      for (const key of ["label", "priority", "botId"] as const) if (key in next) put(key, next[key]);
      const text = query.toString();
      router.replace(text ? `${pathname}?${text}` : pathname);
    },
    [stored, params, router, pathname, inUrl, view, sort],
  );
  return { view, sort, filters, set };
}

/** One inbox view's conversations with every view's count (GET /conversations). */
export function useInboxList(view: InboxView, sort: InboxSort, search = "", filters: InboxFilters = {}) {
  const poll = usePollInterval(3_000);
  return useQuery({
    queryKey: ["conversations", view, sort, search, filters.botId ?? null, filters.label ?? null, filters.priority ?? null],
    queryFn: () => api<ConversationList>(`/conversations?${inboxQuery(view, sort, search, filters)}&take=200`),
    // Polling is the fallback: with the event stream open, events refetch this (usePollInterval).
    refetchInterval: poll,
  });
}

/** PATCH /conversations/{id}: status, snooze, assignee, priority, labels; a 409 (someone else changed it) is the mutation's error. */
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
