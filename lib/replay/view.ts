import type { StoredReplay } from "../db/replays";
import type { ReplayOutput } from "../db/replays";
import { promptDiff, promptText } from "./prompt-diff";

/** What the original turn answered, read from its recorded tool calls. */
export function originalAnswer(toolCalls: unknown): { replied: boolean; text: string | null; handoff: string | null } {
  const calls = Array.isArray(toolCalls) ? (toolCalls as { tool?: string; message?: string }[]) : [];
  const reply = calls.find((c) => c.tool !== "handoff" && typeof c.message === "string");
  const handoff = calls.find((c) => c.tool === "handoff");
  return { replied: !!reply, text: reply?.message ?? null, handoff: handoff?.message ?? null };
}

const normalized = (text: string | null) => (text === null ? null : text.trim().replace(/\s+/g, " "));

/** Whether the replay's answer differs from the original's: another text, silent instead of replying (or back), or a handoff started or dropped. */
export function answerChanged(original: ReturnType<typeof originalAnswer>, output: ReplayOutput | null): boolean {
  if (!output) return false;
  return normalized(original.text) !== normalized(output.text) || (original.handoff === null) !== (output.handoff === null);
}

/** Where a result stands for the reader: what needs a look first (failed, then changed), then still running, then unchanged. */
const REVIEW_RANK = { failed: 0, changed: 1, running: 2, unchanged: 3 } as const;

/**
 * A run's per-turn results in review order: failed, changed, running, unchanged; within
 * each, oldest turn first. They came in the order the worker finished them.
 *
 * @example inReviewOrder([{ turnId: 2, status: "done", answerChanged: false }, { turnId: 9, status: "done", answerChanged: true }]) // turn 9 first
 */
export function inReviewOrder<T extends { turnId: number; status: string; answerChanged: boolean }>(results: T[]): T[] {
  const rank = (r: T) =>
    r.status === "failed"
      ? REVIEW_RANK.failed
      : r.answerChanged
        ? REVIEW_RANK.changed
        : r.status === "running"
          ? REVIEW_RANK.running
          : REVIEW_RANK.unchanged;
  return [...results].sort((a, b) => rank(a) - rank(b) || a.turnId - b.turnId);
}

/** A stored replay as the API answers it: the result, and its prompt and answer against the original's. */
export function replayView(replay: StoredReplay) {
  const output = (replay.output as ReplayOutput | null) ?? null;
  const original = originalAnswer(replay.turn.toolCalls);
  const prompt = { system: replay.system ?? "", messages: (replay.prompt as { role: string; content: unknown }[] | null) ?? [] };
  const originalPrompt = { system: replay.turn.system, messages: replay.turn.prompt as { role: string; content: unknown }[] };
  return {
    id: replay.id,
    turnId: replay.turnId,
    runId: replay.runId,
    mode: replay.mode as "frozen" | "rebuild",
    variant: replay.variant as Record<string, unknown>,
    status: replay.status as "running" | "done" | "failed",
    error: replay.error,
    model: replay.model,
    prompt,
    output,
    usage: (replay.usage as Record<string, unknown> | null) ?? null,
    latencyMs: replay.latencyMs,
    inputTokens: replay.inputTokens,
    outputTokens: replay.outputTokens,
    costUsd: replay.costUsd,
    createdAt: replay.createdAt,
    diff: {
      prompt: replay.system === null ? [] : promptDiff(promptText(originalPrompt), promptText(prompt)),
      answerChanged: replay.status === "done" && answerChanged(original, output),
    },
  };
}

export type ReplayView = ReturnType<typeof replayView>;
