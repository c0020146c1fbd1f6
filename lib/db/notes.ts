import type { Database } from "./database";

const noteView = { id: true, conversationId: true, operatorId: true, operatorName: true, text: true, createdAt: true } as const;

export function addNote(db: Database, input: { conversationId: number; operatorId: number; operatorName: string; text: string }) {
  return db.prisma.conversationNote.create({ data: input, select: noteView });
}

/** A conversation's notes, oldest first (the timeline shows them between the messages by time). */
export function listNotes(db: Database, conversationId: number) {
  return db.prisma.conversationNote.findMany({
    where: { conversationId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: noteView,
  });
}
