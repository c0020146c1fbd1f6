import type { Database } from "../lib/db/database"; const HISTORY=4;
export async function seed(db: Database, conversations: number, offset: number, history = HISTORY) {
  const now = Date.now();
  const at = (ms: number) => new Date(now - ms);
  const ids = Array.from({ length: conversations }, (_, i) => offset + i);
  for (let i = 0; i < ids.length; i += 2_000) {
    const chunk = ids.slice(i, i + 2_000);
    await db.prisma.conversation.createMany({
      data: chunk.map((n) => ({ id: n, channel: "telegram", platformChatId: String(n), type: "private", updatedAt: at(0) })),
    });
    await db.prisma.message.createMany({
      data: chunk.map((n) => ({
        id: n,
        conversationId: n,
        direction: "inbound",
        senderKind: "user",
        text: "hello",
        platformMessageId: String(n),
        sentAt: at(10_000),
      })),
    });
    await db.prisma.envelope.createMany({
      data: chunk.flatMap((n, k) => [
        ...Array.from({ length: history }, (_, h) => ({
          from: `channel:telegram:${n}`,
          to: "agent:main",
          status: "done",
          text: "earlier",
          conversationId: n,
          metadata: {},
          createdAt: at(3_600_000 - h),
          updatedAt: at(0),
          doneAt: at(0),
        })),
        {
          from: `channel:telegram:${n}`,
          to: "agent:main",
          status: "pending",
          text: "hello",
          conversationId: n,
          messageId: n,
          metadata: {},
          // Out of the debounce, oldest first in conversation order.
          createdAt: at(60_000 - (i + k)),
          updatedAt: at(0),
        },
      ]),
    });
  }
}
