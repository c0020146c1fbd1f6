"use client";

import { useState } from "react";
import type { Fork } from "../_lib/types";
import { useForkActions } from "../_lib/use-forks";

/** The buttons a fork offers: exit (three ways) while active, resume otherwise. */
export function ForkControls({ fork, anotherActive }: { fork: Pick<Fork, "id" | "kind" | "status">; anotherActive: boolean }) {
  const { resume, exit } = useForkActions();
  const [confirming, setConfirming] = useState(false);
  const error = resume.error ?? exit.error;
  if (fork.kind === "interactive" && fork.status === "active") {
    return (
      <span className="row">
        <button
          type="button"
          onClick={() => exit.mutate({ id: fork.id, strategy: "report" })}
          disabled={exit.isPending}
          title="Write a short summary into the main session"
        >
          Exit with report
        </button>
        <button
          type="button"
          onClick={() => exit.mutate({ id: fork.id, strategy: "save" })}
          disabled={exit.isPending}
          title="Move its messages into the main session"
        >
          Exit and save
        </button>
        {confirming ? (
          // Discarding cannot be undone from here: ask once, in place.
          <span className="row confirm" role="group" aria-label="Confirm discard">
            <span>Discard fork #{fork.id}? Its messages stay with the fork only.</span>
            <button
              type="button"
              className="danger"
              onClick={() => exit.mutate({ id: fork.id, strategy: "discard" }, { onSettled: () => setConfirming(false) })}
              disabled={exit.isPending}
            >
              Yes, discard
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button
            type="button"
            className="danger"
            onClick={() => setConfirming(true)}
            disabled={exit.isPending}
            title="Keep its history with the fork only"
          >
            Discard
          </button>
        )}
        {error && (
          <span className="error" role="alert">
            {error.message}
          </span>
        )}
      </span>
    );
  }
  if (fork.status === "running") return <span className="muted">running…</span>;
  return (
    <span className="row">
      <button
        type="button"
        onClick={() => resume.mutate(fork.id)}
        disabled={resume.isPending || anotherActive}
        title={anotherActive ? "Another fork is active in this conversation" : "The next user message continues this fork"}
      >
        Resume
      </button>
      {error && (
        <span className="error" role="alert">
          {error.message}
        </span>
      )}
    </span>
  );
}
