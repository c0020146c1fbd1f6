import type { Db } from "./client";

export type TurnRecord = {
  envelopeId: number;
  conversationId: number;
  forkId: number | null;
  model: string;
  system: string;
  prompt: unknown;
  toolCalls: unknown[];
  usage: Record<string, unknown>;
  latencyMs: number;
  error?: string | null;
};

/** One row per inbound envelope: a retried turn overwrites its earlier attempt. */
export function saveTurn(db: Db, turn: TurnRecord) {
  const data = { ...turn, prompt: turn.prompt as never, toolCalls: turn.toolCalls as never, usage: turn.usage as never, error: turn.error ?? null };
  return db.turn.upsert({ where: { envelopeId: turn.envelopeId }, create: data, update: data });
}

export function findTurnByEnvelope(db: Db, envelopeId: number) {
  return db.turn.findUnique({ where: { envelopeId } });
}

export function findTurn(db: Db, id: number) {
  return db.turn.findUnique({ where: { id }, include: { envelope: { select: { id: true, messageId: true, status: true } } } });
}
