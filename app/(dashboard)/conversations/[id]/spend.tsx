"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { api } from "../../_lib/api";
import { spentText, tokens } from "../../_lib/money";
import type { ConversationUsage } from "../../_lib/types";

/** The conversation's total: what all its agent turns cost, and their tokens; its replays are named apart in the title. */
export function ConversationSpend({ conversationId }: { conversationId: number }) {
  const query = useQuery({
    queryKey: ["usage", "conversation", conversationId],
    queryFn: () => api<ConversationUsage>(`/conversations/${conversationId}/usage`),
    refetchInterval: 30_000,
  });
  const u = query.data;
  if (!u || u.turns === 0) return null;
  return (
    <Link
      href="/usage"
      className="badge"
      data-testid="conversation-spend"
      title={`${u.turns} turns · ${tokens(u.inputTokens)} input tokens (${tokens(u.cachedInputTokens)} cached) · ${tokens(u.outputTokens)} output tokens${u.unpricedTurns ? ` · ${u.unpricedTurns} turns without a price` : ""}${u.replays.replays ? ` · replays: ${spentText(u.replays.costUsd, u.replays.unpricedReplays)} over ${u.replays.replays}` : ""}`}
    >
      {u.costUsd === null ? "cost unknown" : `spent ${spentText(u.costUsd, u.unpricedTurns)}`} · {tokens(u.inputTokens + u.outputTokens)}{" "}
      tokens
    </Link>
  );
}
