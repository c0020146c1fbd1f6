"use client";

import type { Applied } from "../_lib/types";

/** What "Apply these settings" did: the global keys, those written to the replayed turns' bot, what could not be applied. */
export function ApplyOutcome({ applied }: { applied: Applied }) {
  const global = applied.applied.length ? `${applied.applied.join(", ")} (all bots)` : applied.bot ? "" : "nothing changed";
  const toBot = applied.bot
    ? ` ${applied.applied.length ? "and " : ""}${applied.bot.applied.join(", ")} to ${applied.bot.name} (its own values)`
    : "";
  const model = applied.notApplied.includes("model") ? " (the model is set by the server's environment: not applied)" : "";
  return (
    <span role="status">
      Applied: {global}
      {toBot}
      {model}
    </span>
  );
}
