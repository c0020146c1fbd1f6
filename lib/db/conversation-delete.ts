import type { Database } from "./database";

/**
 * Deletes a conversation and everything that belongs to it (messages, attachments,
 * envelopes, turns, forks, notes: the schema's cascades) in one statement. Returns
 * whether it existed and the blobs its attachments referred to, which the caller
 * hands to the blob store once the rows are gone (a blob another conversation
 * still uses stays).
 */
export async function deleteConversation(db: Database, conversationId: number): Promise<{ deleted: boolean; blobs: string[] }> {
  const attachments = await db.prisma.attachment.findMany({
    where: { message: { conversationId }, blobSha256: { not: null } },
    select: { blobSha256: true },
    distinct: ["blobSha256"],
  });
  const { count } = await db.prisma.conversation.deleteMany({ where: { id: conversationId } });
  return { deleted: count === 1, blobs: attachments.flatMap((row) => (row.blobSha256 ? [row.blobSha256] : [])) };
}
