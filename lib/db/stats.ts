import type { Database } from "./database";

const HOUR = 3_600_000;

/**
 * What the conversation page draws: messages per hour over the last `hours`
 * (inbound and outbound), and the agent's turn latencies (newest 100).
 */
export async function conversationStats(db: Database, conversationId: number, now: Date, hours = 48) {
  const since = new Date(Math.floor(now.getTime() / HOUR) * HOUR - (hours - 1) * HOUR);
  const [messages, turns] = await Promise.all([
    db.prisma.message.findMany({
      where: { conversationId, sentAt: { gte: since } },
      select: { sentAt: true, direction: true },
      take: 50_000,
    }),
    db.prisma.turn.findMany({
      where: { conversationId },
      orderBy: { id: "desc" },
      take: 100,
      select: { createdAt: true, latencyMs: true, error: true },
    }),
  ]);
  const activity = Array.from({ length: hours }, (_, i) => ({
    at: new Date(since.getTime() + i * HOUR).toISOString(),
    inbound: 0,
    outbound: 0,
  }));
  for (const m of messages) {
    const bucket = activity[Math.floor((m.sentAt.getTime() - since.getTime()) / HOUR)];
    if (bucket) bucket[m.direction === "inbound" ? "inbound" : "outbound"] += 1;
  }
  const latency = turns
    .filter((t) => t.latencyMs !== null)
    .reverse()
    .map((t) => ({ at: t.createdAt.toISOString(), ms: t.latencyMs!, failed: t.error !== null }));
  const sorted = latency.map((l) => l.ms).sort((a, b) => a - b);
  const p50 = sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : null;
  return { activity, latency, latencyP50: p50 };
}
