import type { Caller } from "../auth/operators";
import { deleteConversation } from "../db/conversation-delete";
import type { Database } from "../db/database";
import { notFound } from "../errors";
import { publish } from "../events/bus";
import { log } from "../log";
import { blobStoreFor } from "../media/blob-store";

/**
 * Deletes a conversation's data for good (admins only, as DELETE /conversations/{id} declares): its messages and everything on
 * them go in one statement, then the files nothing else refers to (a photo
 * another chat also sent stays, stored once for both).
 */
export async function deleteConversationData(db: Database, caller: Caller, conversationId: number) {
  // The same bytes stored again from now on (another message) keep their file.
  const startedAt = new Date();
  const { deleted, blobs } = await deleteConversation(db, conversationId);
  if (!deleted) throw notFound("conversation");
  const removed = await removeFiles(db, blobs, startedAt);
  log.info("conversation.deleted", { conversationId, by: caller.operator.name, filesRemoved: removed });
  publish(db, { type: "conversation", conversationId });
  return { removedFiles: removed };
}

/** The rows are gone already: a file left behind (the disk failed) is logged, and the hourly orphan sweep removes it (lib/media/retention.ts). */
async function removeFiles(db: Database, blobs: string[], putBefore: Date): Promise<number> {
  if (blobs.length === 0) return 0;
  try {
    return await blobStoreFor(db).removeUnreferenced(blobs, putBefore);
  } catch (error) {
    log.error("media.remove_failed", { count: blobs.length, error });
    return 0;
  }
}
