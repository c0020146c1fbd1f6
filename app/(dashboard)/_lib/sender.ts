"use client";

import { useQuery } from "@tanstack/react-query";
import { api } from "./api";
import type { StatusInfo } from "./types";

/**
 * The name to show for a message's sender: the bot's own username for the
 * agent (not the internal agent name, e.g. `main`), the operator's name
 * without the `operator:` address prefix, a user's name as the platform gave it.
 */
export function senderDisplayName(kind: string, name: string | null, botUsername: string | null | undefined): string {
  if (kind === "agent") return botUsername ? `@${botUsername}` : (name ?? "agent");
  if (name?.startsWith("operator:")) return name.slice("operator:".length);
  return name ?? kind;
}

/** The bot's username from /status (shared cache with the other pages), null until known. */
export function useBotUsername(): string | null {
  const status = useQuery({ queryKey: ["status"], queryFn: () => api<StatusInfo>("/status"), staleTime: 60_000 });
  return status.data?.telegram.username ?? null;
}
