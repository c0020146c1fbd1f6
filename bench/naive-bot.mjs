// The bot a user would write instead of running Switchboard, for the answer-latency
// bench to run beside ours: grammY's webhookCallback on plain node:http, and inside
// the handler one AI SDK generateText with a `reply` tool that sends the answer.
// No queue, no context, no storage: each message is answered on its own, and what is
// in flight is lost on a crash.
//
// NAIVE_MODE=inline (default) answers inside the webhook: Telegram's 200 waits for the
// model, as grammY's webhook guide warns. NAIVE_MODE=detached answers 200 first and
// the model afterwards (what such a bot does once the platform's retries bite).
import { createServer } from "node:http";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, isStepCount, tool } from "ai";
import { Bot, webhookCallback } from "grammy";
import { z } from "zod";

const { PORT, TELEGRAM_API_ROOT, TELEGRAM_WEBHOOK_SECRET, LLM_BASE_URL, LLM_MODEL, NAIVE_MODE = "inline" } = process.env;

const model = createOpenAICompatible({ name: "bench", baseURL: LLM_BASE_URL }).chatModel(LLM_MODEL ?? "slow");
const bot = new Bot("1:bench", {
  client: { apiRoot: TELEGRAM_API_ROOT },
  // Given up front, as a deployed bot would after its first getMe.
  botInfo: {
    id: 1,
    is_bot: true,
    first_name: "B",
    username: "bench_bot",
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
    can_connect_to_business: false,
    has_main_web_app: false,
  },
});

async function answer(ctx) {
  await generateText({
    model,
    instructions: "You are a helpful bot. Answer only through the reply tool.",
    prompt: `Message from ${ctx.from.first_name}: ${ctx.message.text}`,
    tools: {
      reply: tool({
        description: "Send the answer to the user",
        inputSchema: z.object({ message: z.string() }),
        execute: async ({ message }) => {
          await ctx.reply(message, { reply_parameters: { message_id: ctx.message.message_id } });
          return "sent";
        },
      }),
    },
    stopWhen: isStepCount(1),
  });
}

bot.on("message:text", (ctx) => {
  if (NAIVE_MODE === "detached") {
    void answer(ctx).catch((error) => console.error(error));
    return;
  }
  return answer(ctx);
});
bot.catch((error) => console.error(error.error));

const handle = webhookCallback(bot, "http", "return", 60_000, TELEGRAM_WEBHOOK_SECRET);
const server = createServer((req, res) => {
  if (req.method === "POST") return void handle(req, res);
  // The bench's health check and /metrics scrape.
  res.writeHead(req.url === "/api/health" ? 200 : 404).end();
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;
server.listen(Number(PORT), "127.0.0.1", 4096);
