import { z } from "zod";
import { SIMULATED_SEND_FAILURES } from "@/lib/channels/telegram/adapter";
import { AppError } from "@/lib/errors";
import { withOperator } from "@/lib/http/api";
import { json, readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

const schema = z.object({ next: z.enum(Object.keys(SIMULATED_SEND_FAILURES) as [keyof typeof SIMULATED_SEND_FAILURES]).nullable() });

/** Sandbox only: make the bot's next send fail as Telegram would (403, 500, timeout), to see how failures show. */
export const POST = withOperator(async ({ request, ctx }) => {
  const { next } = await readJson(request, schema);
  if (!ctx.telegram.failNextSend) throw new AppError("forbidden", "the simulator is off while a real Telegram bot is configured");
  ctx.telegram.failNextSend(next);
  return json({ next });
});
