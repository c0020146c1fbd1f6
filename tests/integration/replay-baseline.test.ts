import { describe, expect, it } from "vitest";
import { databases } from "../helpers/db";
import { useRoutedApp } from "../helpers/route-app";
import { callRoute } from "../helpers/route-call";

const TOKEN = "replay-baseline-test-token-0123456789";

/** What the variant forms prefill: a single replay's (by conversation) and a dataset run's, from the same server decision. */
describe.each(databases)("what a replay's variant form starts from on $name", ({ open }) => {
  const app = useRoutedApp({ open, token: TOKEN });
  const settings = (query: string) => callRoute(TOKEN, "app/api/v1/settings/route.ts", "GET", `/api/v1/settings?${query}`);

  /** Two bots, Alpha with its own instructions and recency window and Bravo with none, a turn in a chat of each. */
  async function seed() {
    const db = app.t.db.prisma;
    const alpha = await db.bot.create({
      data: {
        platform: "telegram",
        source: "api",
        adapter: "telegram-911",
        name: "Alpha",
        instructions: "Alpha's own instructions",
        settings: JSON.stringify({ recencyWindow: 7 }),
      },
    });
    const bravo = await db.bot.create({ data: { platform: "telegram", source: "api", adapter: "telegram-912", name: "Bravo" } });
    const turnIn = async (bot: { id: number; adapter: string }, chat: string) => {
      const conversation = await db.conversation.create({
        data: { channel: bot.adapter, botId: bot.id, platformChatId: chat, type: "private", title: chat, lastMessageAt: new Date() },
      });
      const envelope = await db.envelope.create({
        data: { from: "channel:x", to: "agent:main", text: "x", status: "done", conversationId: conversation.id, metadata: {} },
      });
      const turn = await db.turn.create({
        data: {
          envelopeId: envelope.id,
          conversationId: conversation.id,
          model: "openai:gpt-4o",
          system: "",
          prompt: [],
          toolCalls: [],
          usage: {},
        },
      });
      return { conversation, turn };
    };
    const a1 = await turnIn(alpha, "8001");
    const a2 = await turnIn(alpha, "8002");
    const b = await turnIn(bravo, "8003");
    // Bots written past the app (as another instance would): the settings cache sees them within a second, here at once.
    app.t.db.settingsCache.invalidate();
    const dataset = (turnIds: number[]) => db.dataset.create({ data: { name: "d", turnIds, createdBy: "root" } });
    const global = (await settings("")).body.settings;
    return { a1, a2, b, dataset, global };
  }

  it("a dataset of one bot's turns starts from that bot's instructions and overrides, as a single replay of one of them", async () => {
    const s = await seed();
    const single = await settings(`conversationId=${s.a1.conversation.id}`);
    const run = await settings(`datasetId=${(await s.dataset([s.a1.turn.id, s.a2.turn.id])).id}`);
    expect(run.status).toBe(200);
    expect(run.body.settings).toEqual(single.body.settings);
    expect(run.body.settings).toMatchObject({ agentInstructions: "Alpha's own instructions", recencyWindow: 7 });
    expect(run.body.spansBots).toBe(false);
  });

  it("a dataset of a bot without instructions of its own starts from the global ones", async () => {
    const s = await seed();
    const run = await settings(`datasetId=${(await s.dataset([s.b.turn.id])).id}`);
    expect(run.body).toMatchObject({ settings: s.global, spansBots: false });
  });

  it("a dataset across bots starts from the global settings and says it spans several bots", async () => {
    const s = await seed();
    const run = await settings(`datasetId=${(await s.dataset([s.a1.turn.id, s.b.turn.id])).id}`);
    expect(run.status).toBe(200);
    expect(run.body.settings).toEqual(s.global);
    expect(run.body.settings.agentInstructions).not.toBe("Alpha's own instructions");
    expect(run.body.spansBots).toBe(true);
  });

  it("an unknown dataset is a 404, a bad id a 400", async () => {
    await seed();
    expect((await settings("datasetId=424242")).status).toBe(404);
    expect((await settings("datasetId=abc")).status).toBe(400);
  });
});
