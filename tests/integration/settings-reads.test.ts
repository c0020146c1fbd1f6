import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseUpdate } from "@/lib/channels/telegram/parse";
import { updateSchema } from "@/lib/channels/telegram/schema";
import type { ChannelAdapter } from "@/lib/channels/types";
import { runAgentTurn } from "@/lib/pipeline/agent-turn";
import { ingestEvent } from "@/lib/pipeline/ingest";
import { BOT, update } from "../fixtures/telegram";
import { sqliteTestDb, type TestDb } from "../helpers/db";
import { scriptedModel } from "../helpers/mock-model";

// Issue 49: the settings (global, the bot's overrides, its model) are read once when a
// message comes in and once when its turn starts, and passed down from there; before,
// one Telegram text read them seven times (four reads of the settings, three of the bot's row).
describe("settings read once per inbound message and once per turn", () => {
  let t: TestDb;
  beforeEach(async () => {
    t = await sqliteTestDb();
  });
  afterEach(() => t.close());

  it("one Telegram text: one read to store it, one for its turn (the bot's name, model and prices from it)", async () => {
    const { db } = t;
    await db.prisma.bot.create({
      data: { platform: "telegram", source: "env", adapter: "telegram", name: "Bot", settings: JSON.stringify({ agentName: "tess" }) },
    });
    // Written past lib/db (which drops the snapshot on every bot write): dropped here.
    db.settingsCache.invalidate();
    const reads = vi.spyOn(db.settingsCache, "current");
    const event = parseUpdate(updateSchema.parse(update({ text: "hello" })) as never, BOT);
    if (event.type !== "message") throw new Error("a text is a message");
    const stored = await ingestEvent(db, event, { modelConfigured: true });
    if (stored.status !== "stored") throw new Error(`not stored: ${stored.status}`);
    expect(stored.answer).toBe(true);
    expect(reads).toHaveBeenCalledTimes(1);

    const { handle } = scriptedModel([{ replies: ["hi there"] }]);
    const modelFor = vi.fn(() => undefined);
    const sent: string[] = [];
    const channel: ChannelAdapter = {
      name: "telegram",
      mode: "sandbox",
      send: async (message) => {
        sent.push(message.text);
        return { platformMessageId: String(100 + sent.length), sentAt: new Date() };
      },
    };
    const deps = { db, channels: { telegram: channel }, model: handle, timeoutMs: 10_000, modelFor, requestHandoff: async () => {} };
    const outcome = await runAgentTurn(deps, stored.envelopeId);
    expect(outcome.kind).toBe("answered");
    expect(sent).toEqual(["hi there"]);
    expect(reads).toHaveBeenCalledTimes(2);
    // What the turn read once served each step: the bot's model looked up from its row, its agent name on the answer.
    expect(modelFor).toHaveBeenCalledTimes(1);
    expect(modelFor).toHaveBeenCalledWith(expect.objectContaining({ adapter: "telegram" }));
    const answer = await db.prisma.message.findFirstOrThrow({ where: { direction: "outbound" } });
    expect(answer.senderName).toBe("tess");
  });
});
