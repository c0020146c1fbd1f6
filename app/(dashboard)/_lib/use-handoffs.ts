"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "./api";

export type OpenHandoff = {
  conversationId: number;
  channel: string;
  platformChatId: string;
  title: string | null;
  state: "waiting" | "assigned";
  reason: string | null;
  since: string | null;
  operator: string | null;
  timedOutAt: string | null;
};

/** The open handoffs, shared by the inbox section, the nav badge and the notifier (one query). */
export function useOpenHandoffs() {
  return useQuery({ queryKey: ["handoffs"], queryFn: () => api<{ handoffs: OpenHandoff[] }>("/handoffs"), refetchInterval: 3_000 });
}

export type HandoffAction = "request" | "take" | "release";

/** Moves a conversation's handoff; a 409 (someone else was faster) shows as the mutation's error. */
export function useHandoffAction(conversationId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { action: HandoffAction; reason?: string }) =>
      api(`/conversations/${conversationId}/handoff`, { method: "POST", body }),
    onSettled: () => {
      void client.invalidateQueries({ queryKey: ["handoffs"] });
      void client.invalidateQueries({ queryKey: ["conversation-handoff", conversationId] });
      void client.invalidateQueries({ queryKey: ["conversation", conversationId] });
    },
  });
}
