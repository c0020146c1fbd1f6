"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "./api";
import type { Fork } from "./types";

/** Resume and exit, shared by the forks page, the conversation header and the thread view. */
export function useForkActions() {
  const client = useQueryClient();
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ["forks"] });
    void client.invalidateQueries({ queryKey: ["conversation"] });
    void client.invalidateQueries({ queryKey: ["conversations"] });
  };
  const resume = useMutation({
    mutationFn: (id: number) => api<{ fork: Fork }>(`/forks/${id}/resume`, { method: "POST" }),
    onSuccess: refresh,
  });
  const exit = useMutation({
    mutationFn: ({ id, strategy }: { id: number; strategy: "discard" | "save" | "report" }) =>
      api<{ fork: Fork }>(`/forks/${id}/exit`, { method: "POST", body: { strategy } }),
    onSuccess: refresh,
  });
  const start = useMutation({
    mutationFn: (input: { conversationId: number; task: string }) => api<{ fork: Fork }>("/forks", { method: "POST", body: input }),
    onSuccess: refresh,
  });
  return { resume, exit, start };
}
