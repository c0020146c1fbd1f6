import { type BotScope, reachesRecord } from "../auth/bot-scope";
import type { Database } from "../db/database";
import { findTurnForMessage, messageStoredAt } from "../db/turns";
import { recordIdParam } from "../record-id";

/** How long after it was stored a message without a turn may still get one (the answer is stored before its turn). */
const FRESH_MS = 60_000;

export type InspectTarget =
  /** Open the prompt inspector at this turn. */
  | { kind: "turn"; turnId: number }
  /** Another bot's message to an agent limited to some bots: answered as an unknown page, so nothing tells it exists. */
  | { kind: "not_found" }
  /** Stored moments ago: its turn may still be being recorded. */
  | { kind: "fresh"; messageId: number }
  /** No turn answered or wrote it (or no such message). */
  | { kind: "none"; messageId: number | null };

/** Where the prompt inspector opens for a message (/messages/{id}/inspect), for a caller with these bots. */
export async function inspectTargetOf(db: Database, bots: BotScope | undefined, rawId: string, now = new Date()): Promise<InspectTarget> {
  const parsed = recordIdParam.safeParse(rawId);
  if (!parsed.success) return { kind: "none", messageId: null };
  const messageId = parsed.data;
  if (!(await reachesRecord(db, bots, "message", messageId))) return { kind: "not_found" };
  const turnId = await findTurnForMessage(db, messageId);
  if (turnId !== null) return { kind: "turn", turnId };
  const storedAt = await messageStoredAt(db, messageId);
  return storedAt && now.getTime() - storedAt.getTime() < FRESH_MS ? { kind: "fresh", messageId } : { kind: "none", messageId };
}
