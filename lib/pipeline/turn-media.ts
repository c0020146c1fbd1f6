import type { Transcriber } from "../agent/transcription";
import type { ContextFacts } from "../db/context-facts";
import { isPicture } from "../context/media";
import type { AttachmentFact } from "../db/context-facts";
import { attachmentsOf } from "../db/context-input";
import type { Database } from "../db/database";
import { log } from "../log";
import { blobStoreFor } from "../media/blob-store";

/** The longest a turn waits, in all, for its own messages' files still being fetched: then the model gets their text lines. */
export const MEDIA_WAIT_MS = 2_000;
const POLL_MS = 100;
/** Transcriptions one turn makes at most (the turn's own voice notes first); the rest wait for a later turn. */
const MAX_TRANSCRIPTIONS_PER_TURN = 3;
const SPOKEN = new Set(["voice", "audio", "video_note"]);

export type TurnMediaOptions = {
  /** The model is given pictures (the setting, resolved for the provider). */
  seesImages: boolean;
  transcriber: Transcriber | null;
  /** How long one transcription may take. */
  timeoutMs: number;
  waitMs?: number;
};

/**
 * Brings a turn's media facts up to date before its prompt is made: a short,
 * bounded wait for the turn's own pictures and voice notes still being downloaded
 * (the fetch job stores them; nothing is fetched here), then speech to text for
 * stored voice notes, audio and video notes without a transcript — stored on the
 * attachment once, so no later turn transcribes it again. A failure is logged and
 * leaves the kind-and-duration line: it never fails the turn.
 */
export async function prepareTurnMedia(db: Database, facts: ContextFacts, options: TurnMediaOptions): Promise<ContextFacts> {
  let attachments: ReadonlyMap<number, AttachmentFact[]> = facts.attachments ?? new Map<number, AttachmentFact[]>();
  if (attachments.size === 0) return facts;
  const ownIds = [...(facts.current ? [facts.current.id] : []), ...facts.burst.map((m) => m.id)];
  const own = ownIds.flatMap((id) => attachments.get(id) ?? []);
  const matters = (a: AttachmentFact) => (options.seesImages && isPicture(a)) || (options.transcriber !== null && SPOKEN.has(a.kind));
  const waiting = own.filter((a) => a.status === "pending" && matters(a)).map((a) => a.id);
  if (waiting.length) {
    await waitWhilePending(db, waiting, options.waitMs ?? MEDIA_WAIT_MS);
    attachments = await attachmentsOf(
      db,
      [...attachments.keys()].map((id) => ({ id })),
    );
  }
  if (options.transcriber) attachments = await transcribeSpoken(db, attachments, ownIds, options.transcriber, options.timeoutMs);
  return { ...facts, attachments };
}

async function waitWhilePending(db: Database, ids: number[], waitMs: number) {
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    const pending = await db.prisma.attachment.count({ where: { id: { in: ids }, status: "pending" } });
    if (pending === 0) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))));
  }
}

async function transcribeSpoken(
  db: Database,
  attachments: ReadonlyMap<number, AttachmentFact[]>,
  ownIds: number[],
  transcriber: Transcriber,
  timeoutMs: number,
): Promise<ReadonlyMap<number, AttachmentFact[]>> {
  const own = new Set(ownIds);
  const todo = [...attachments.entries()]
    .sort(([a], [b]) => Number(own.has(b)) - Number(own.has(a)) || b - a)
    .flatMap(([, list]) => list.filter((a) => SPOKEN.has(a.kind) && a.status === "stored" && a.blobSha256 && a.transcript === null))
    .slice(0, MAX_TRANSCRIPTIONS_PER_TURN);
  if (todo.length === 0) return attachments;
  const store = blobStoreFor(db);
  const done = new Map<number, string>();
  await Promise.all(
    todo.map(async (a) => {
      try {
        const blob = await store.get(a.blobSha256!);
        if (!blob) return;
        const text = await transcriber.transcribe(blob.bytes, { abortSignal: AbortSignal.timeout(timeoutMs) });
        // Stored once: a transcript already there (another instance's turn) is kept.
        await db.prisma.attachment.updateMany({ where: { id: a.id, transcript: null }, data: { transcript: text } });
        done.set(a.id, text);
        log.info("media.transcribed", { attachmentId: a.id, model: transcriber.modelId, chars: text.length });
      } catch (error) {
        log.warn("media.transcription_failed", { attachmentId: a.id, error: (error as Error).message });
      }
    }),
  );
  return new Map(
    [...attachments].map(([messageId, list]) => [messageId, list.map((a) => (done.has(a.id) ? { ...a, transcript: done.get(a.id)! } : a))]),
  );
}
