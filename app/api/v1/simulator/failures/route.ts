import { sendFailureBody, sendFailureResponse } from "@/lib/api/simulator/schema";
import { AppError } from "@/lib/errors";
import { withOperator } from "@/lib/server/with-operator";
import { jsonOf, readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** Sandbox only: make the bot's next send fail as Telegram would (403, 500, timeout), to see how failures show. */
export const POST = withOperator(
  async ({ request, ctx }) => {
    const { next } = await readJson(request, sendFailureBody);
    if (!ctx.telegram.failNextSend) throw new AppError("forbidden", "the simulator is off while a real Telegram bot is configured");
    ctx.telegram.failNextSend(next);
    return jsonOf(sendFailureResponse, { next });
  },
  { role: "admin", to: "use the simulator" },
);
