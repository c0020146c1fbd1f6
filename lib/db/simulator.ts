import type { Database } from "./database";

/** A stored Telegram message as the simulator needs it to build reply_to_message (lib/channels/telegram/simulator.ts `ReplyTargetInfo`). */
export type SimulatorTarget = {
  platformMessageId: string;
  text: string;
  sentAt: Date;
  fromBot: boolean;
  senderName: string | null;
  senderId: string | null;
};

export async function findSimulatorTarget(db: Database, messageId: number): Promise<SimulatorTarget | null> {
  const m = await db.prisma.message.findUnique({
    where: { id: messageId },
    select: {
      platformMessageId: true,
      text: true,
      sentAt: true,
      senderKind: true,
      senderName: true,
      senderPlatformId: true,
      conversation: { select: { channel: true } },
    },
  });
  if (!m?.platformMessageId || m.conversation.channel !== "telegram") return null;
  return {
    platformMessageId: m.platformMessageId,
    text: m.text,
    sentAt: m.sentAt,
    fromBot: m.senderKind === "agent" || m.senderKind === "operator",
    senderName: m.senderName,
    senderId: m.senderPlatformId,
  };
}
