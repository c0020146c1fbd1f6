/**
 * Reply-to-fork, the one rule: resuming a fork makes it (for a background fork,
 * a new interactive child of it) the conversation's active fork, so the next
 * messages continue it — unless another interactive fork is active, which is a
 * conflict (forks never nest). Used by ingest (a user's reply to a message a
 * background fork posted) and by resumeFork (an operator's explicit resume).
 */
import type { RoutingFork } from "../db/ingest";

/** What the rules read of a fork (lib/db/ingest.ts `findRoutingFork` loads it; its parent is read where a rule needs it). */
type ForkFacts = Omit<RoutingFork, "parentForkId">;

export type ResumeDecision =
  /** Nothing active: open the fork (a background fork through an interactive child of it). */
  | { action: "open" }
  /** The fork, or its interactive child, is the active one already: continue there. */
  | { action: "continue"; forkId: number }
  /** Another interactive fork is active: do not nest. */
  | { action: "conflict"; activeForkId: number };

/**
 * What resuming `fork` means, given the conversation's active fork (null when
 * the main session is active).
 */
export function decideResume(fork: { id: number }, active: { id: number; parentForkId: number | null } | null): ResumeDecision {
  if (active === null) return { action: "open" };
  if (active.id === fork.id || active.parentForkId === fork.id) return { action: "continue", forkId: active.id };
  return { action: "conflict", activeForkId: active.id };
}

/**
 * A user's reply to a message a fork posted resumes it only when the fork is a
 * background fork that has not expired and started less than `ttlMs` before the
 * reply was sent (an old task's thread is no longer a session; the reply goes
 * to wherever the conversation is).
 */
export function replyResumes(fork: ForkFacts, replySentAt: Date, ttlMs: number): boolean {
  return fork.kind === "background" && fork.status !== "expired" && fork.startedAt.getTime() > replySentAt.getTime() - ttlMs;
}

/** The interactive fork that resumes a background fork: its child, on the same base as the parent. */
export function interactiveChildOf(fork: ForkFacts & { conversationId: number }, startedBy: string) {
  return { conversationId: fork.conversationId, parentForkId: fork.id, startedBy, title: fork.title, baseMessageId: fork.baseMessageId };
}

/**
 * The session an outbound message (the agent's, an operator's, channel mail) joins:
 * the fork it was meant for while that fork is live (a background task running, an
 * interactive fork active), else the session live when it is written, the
 * conversation's active fork or the main session. A reply to a discarded fork's
 * message, written after the fork ended, is part of what the main session must
 * see next; kept with the dead fork it would vanish from every prompt.
 */
export function sessionOfOutbound(
  meantFor: { kind: string; status: string } | null,
  activeForkId: number | null,
  forkId: number,
): number | null {
  if (meantFor && ((meantFor.kind === "background" && meantFor.status === "running") || meantFor.status === "active")) return forkId;
  return activeForkId;
}
