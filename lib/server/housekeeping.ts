import { claimStaleSend, findStaleSends } from "../db/envelopes";
import { endEnvelope } from "../pipeline/end-envelope";
import { parseAddress } from "../envelope/address";
import { keepPossiblyDelivered } from "../pipeline/send-to-chat";
import { failForksOfFailedTasks } from "../db/forks";
import { findReplyTarget } from "../db/messages";
import { deleteExpiredSessions } from "../db/operators";
import { endInterruptedReplays } from "../replay/interrupted";
import { applyMediaRetention } from "../media/retention";
import { settingsFor } from "../settings/reader";
import { sweepForks } from "../pipeline/forks";
import { wakeSnoozed } from "../pipeline/conversation-status";
import { handoffTimeouts } from "../pipeline/handoff";
import type { TurnDeps } from "../pipeline/agent-turn";

/**
 * What the scheduler does on each timer tick besides delivering due envelopes:
 * fork idle timeouts and expiry, snoozed conversations whose time came, and failing sends a crashed process left
 * half-done (in flight longer than `staleSendMs`, far past any platform call's time limit), so nothing stays "processing" forever, and
 * at most once a minute: purging expired operator sessions, ending the forks
 * of background tasks the worker gave up on ("failed", with the reason), and the
 * media retention (`mediaRetentionDays`) with its sweep of unreferenced files, and
 * failing the replays and dataset runs a stopped process left running (giving an agent back a run's turns it never reached).
 */
export async function housekeeping(deps: TurnDeps, staleSendMs: number, now = new Date()) {
  await sweepForks(deps, now);
  await handoffTimeouts(deps, now);
  await wakeSnoozed(deps.db, now);
  await keepStaleSends(deps, new Date(now.getTime() - staleSendMs));
  const last = lastPurge.get(deps.db) ?? 0;
  if (now.getTime() - last >= 60_000) {
    lastPurge.set(deps.db, now.getTime());
    await deleteExpiredSessions(deps.db, now);
    await failForksOfFailedTasks(deps.db, now);
    await applyMediaRetention(deps.db, (await settingsFor(deps.db)).mediaRetentionDays, now);
    await endInterruptedReplays(deps.db, deps.timeoutMs, now);
  }
}

const lastPurge = new WeakMap<object, number>();

const STALE_SEND = "delivery outcome unknown: the server stopped during the send";

/** Half-done sends end failed, kept in the history as possibly delivered (the user may well have them). */
async function keepStaleSends(deps: TurnDeps, startedBefore: Date) {
  for (const envelope of await findStaleSends(deps.db, startedBefore)) {
    // Ticks can overlap (and instances share the table): one of them keeps each send.
    if (!(await claimStaleSend(deps.db, envelope.id, STALE_SEND))) continue;
    if (!envelope.conversation) {
      await endEnvelope(
        deps.db,
        envelope.id,
        { status: "failed", error: STALE_SEND, metadata: { outcome: "unknown" } },
        envelope.conversationId,
      );
      continue;
    }
    const inReplyTo = envelope.metadata.inReplyToMessageId;
    const replyTo = inReplyTo ? await findReplyTarget(deps.db, inReplyTo) : null;
    const sender = parseAddress(envelope.from);
    await keepPossiblyDelivered(deps.db, envelope.id, {
      senderKind: sender.kind === "operator" ? "operator" : "agent",
      senderName: sender.kind === "channel" ? sender.adapter : sender.name,
      conversation: envelope.conversation,
      text: envelope.text,
      replyTo,
      forkId: envelope.forkId,
      error: STALE_SEND,
    });
  }
}
