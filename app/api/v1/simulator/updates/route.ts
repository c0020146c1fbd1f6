import { buildSimulatedUpdate, simulatedMessageSchema } from "@/lib/channels/telegram/simulator";
import { SECRET_HEADER } from "@/lib/channels/telegram/webhook";
import { AppError } from "@/lib/errors";
import { withOperator } from "@/lib/http/api";
import { readJson } from "@/lib/http/respond";
import { findSimulatorTarget } from "@/lib/db/simulator";

export const dynamic = "force-dynamic";

/**
 * The sandbox simulator: builds a real Telegram Update and hands it to the same
 * webhook handler Telegram reaches, with the secret added here on the server.
 * Refused when a real bot token is configured.
 */
export const POST = withOperator(async ({ request, ctx }) => {
  if (ctx.telegram.mode !== "sandbox") throw new AppError("forbidden", "the simulator is off while a real Telegram bot is configured");
  const input = await readJson(request, simulatedMessageSchema);
  const target = input.replyToMessageId ? await findSimulatorTarget(ctx.db, input.replyToMessageId) : null;
  if (input.replyToMessageId && !target) throw new AppError("not_found", "message to reply to not found");
  const update = buildSimulatedUpdate(input, await ctx.telegram.identity(), target);
  return ctx.telegramWebhook(
    new Request("http://internal/api/webhooks/telegram", {
      method: "POST",
      headers: { "content-type": "application/json", [SECRET_HEADER]: ctx.telegramSecret },
      body: JSON.stringify(update),
    }),
  );
});
