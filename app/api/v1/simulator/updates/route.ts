import { simulateMessage, simulatedMessageSchema } from "@/lib/channels/telegram/simulator";
import { findSimulatorTarget } from "@/lib/db/simulator";
import { withOperator } from "@/lib/server/with-operator";
import { readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** The sandbox simulator: a real Telegram Update through the real webhook handler. */
export const POST = withOperator(
  async ({ request, ctx }) => {
    return simulateMessage(
      { ...ctx, findTarget: (id) => findSimulatorTarget(ctx.db, id) },
      await readJson(request, simulatedMessageSchema),
    );
  },
  { role: "admin", to: "use the simulator" },
);
