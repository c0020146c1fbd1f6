"use client";

import { useQuery } from "@tanstack/react-query";
import { api } from "../_lib/api";
import { useSenderLabel } from "../_lib/sender";
import { useHandoffAction } from "../_lib/use-handoffs";

type Handoff = null | { state: "waiting" | "assigned"; reason: string | null; since: string | null; operator: string | null };

/** The conversation page's handoff control: hand off, Take over (waiting), Hand back (assigned). */
export function HandoffControl({ conversationId }: { conversationId: number }) {
  const query = useQuery({
    queryKey: ["conversation-handoff", conversationId],
    queryFn: () => api<{ conversation: { handoff: Handoff } }>(`/conversations/${conversationId}`),
    refetchInterval: 2_000,
  });
  const action = useHandoffAction(conversationId);
  const label = useSenderLabel().sender;
  if (!query.data) return null;
  const handoff = query.data.conversation.handoff;
  return (
    <span className="row" data-testid="handoff-control">
      {handoff === null && (
        <button
          type="button"
          disabled={action.isPending}
          onClick={() => action.mutate({ action: "request" })}
          title="Stop the agent and put this conversation in “Needs a human”"
        >
          Hand off to a human
        </button>
      )}
      {handoff?.state === "waiting" && (
        <>
          <span className="badge warn" data-testid="handoff-state">
            waiting for a human{handoff.reason ? `: ${handoff.reason}` : ""}
          </span>
          <button type="button" disabled={action.isPending} onClick={() => action.mutate({ action: "take" })}>
            Take over
          </button>
        </>
      )}
      {handoff?.state === "assigned" && (
        <>
          <span className="badge ok" data-testid="handoff-state">
            with {label("operator", handoff.operator)}: the agent is silent
          </span>
          <button type="button" disabled={action.isPending} onClick={() => action.mutate({ action: "release" })}>
            Hand back
          </button>
        </>
      )}
      {action.isError && (
        <span className="error" role="alert">
          {action.error.message}
        </span>
      )}
    </span>
  );
}
