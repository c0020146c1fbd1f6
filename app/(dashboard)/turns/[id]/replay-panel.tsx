"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../../_lib/api";
import type { Replay, Turn } from "../../_lib/types";
import { ReplayResult } from "../../replays/replay-result";
import { VariantForm, type ReplayBody } from "../../replays/variant-form";

/** "Replay…" on the prompt inspector: run this turn again with a variant and see it beside the original. */
export function ReplayPanel({ turn }: { turn: Turn }) {
  const [open, setOpen] = useState(false);
  const [shown, setShown] = useState<number | null>(null);
  const client = useQueryClient();
  const replays = useQuery({
    queryKey: ["turn-replays", turn.id],
    queryFn: () => api<{ replays: Replay[] }>(`/turns/${turn.id}/replays`),
    enabled: open,
  });
  const run = useMutation({
    mutationFn: (body: ReplayBody) => api<{ replay: Replay }>(`/turns/${turn.id}/replays`, { method: "POST", body }),
    onSuccess: ({ replay }) => {
      setShown(replay.id);
      client.setQueryData(["turn-replays", turn.id], (old: { replays: Replay[] } | undefined) => ({
        replays: [replay, ...(old?.replays ?? [])],
      }));
    },
  });
  const list = replays.data?.replays ?? [];
  const current = list.find((r) => r.id === shown) ?? null;
  return (
    <section data-testid="replay-panel">
      <h2>Replay</h2>
      <button type="button" onClick={() => setOpen(!open)} aria-expanded={open}>
        Replay…
      </button>
      {open && (
        <>
          <p className="muted">
            Runs this turn again with other instructions, model or context settings. Nothing is sent to the chat or stored in its history.
          </p>
          <VariantForm
            submitLabel="Run replay"
            busy={run.isPending}
            onSubmit={(body) => run.mutate(body)}
            of={{ conversationId: turn.conversationId }}
          />
          {run.isError && (
            <p className="error" role="alert">
              {run.error.message}
            </p>
          )}
          {current && (
            <ReplayResult
              replay={current}
              turn={turn}
              onDeleted={() => {
                setShown(null);
                client.invalidateQueries({ queryKey: ["turn-replays", turn.id] });
              }}
            />
          )}
          {list.length > 0 && (
            <p className="row" style={{ flexWrap: "wrap" }}>
              <span className="muted">Earlier replays:</span>
              {list.map((r) => (
                <button key={r.id} type="button" onClick={() => setShown(r.id)} aria-pressed={r.id === shown}>
                  #{r.id} {r.mode}
                  {r.diff.answerChanged ? " · changed" : ""}
                </button>
              ))}
            </p>
          )}
        </>
      )}
    </section>
  );
}
