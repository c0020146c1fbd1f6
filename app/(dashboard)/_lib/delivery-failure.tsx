"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "./api";
import type { EnvelopeBrief } from "./types";

/**
 * A failed envelope where the operator reads the conversation: the reason (a
 * refused or unknown-outcome send, a failed or malformed turn) and a Retry that
 * runs the turn, or the send, again (POST /envelopes/{id}/retry).
 */
export function DeliveryFailure({ envelope, onRetried }: { envelope: EnvelopeBrief; onRetried?: () => void }) {
  const client = useQueryClient();
  const retry = useMutation({
    mutationFn: () => api(`/envelopes/${envelope.id}/retry`, { method: "POST" }),
    onSuccess: () => {
      void client.invalidateQueries();
      onRetried?.();
    },
  });
  const reason = envelope.lastDeliveryError ?? "failed";
  const possiblyDelivered = envelope.outcome === "unknown";
  return (
    <div className={`delivery-failure ${possiblyDelivered ? "warn" : "error"}`} data-testid="delivery-failure" role="note">
      <span className={`badge ${possiblyDelivered ? "warn" : "err"}`}>{possiblyDelivered ? "possibly delivered" : "failed"}</span> {reason}{" "}
      {retry.isSuccess ? (
        <span className="muted" role="status">
          Retrying…
        </span>
      ) : (
        <button
          type="button"
          onClick={() => retry.mutate()}
          disabled={retry.isPending}
          title={possiblyDelivered ? "Check the chat first: this sends it again" : "Run it again"}
        >
          Retry
        </button>
      )}
      {retry.isError && (
        <span className="error" role="alert">
          {" "}
          {retry.error.message}
        </span>
      )}
    </div>
  );
}
