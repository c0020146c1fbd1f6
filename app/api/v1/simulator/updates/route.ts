import { simulateUpdate } from "@/lib/api/simulator/simulate-update";
import { simulatedMessageSchema } from "@/lib/channels/telegram/simulator";
import { withOperator } from "@/lib/server/with-operator";
import { readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** The sandbox simulator: a real Telegram Update through the real webhook handler. */
export const POST = withOperator(
  async ({ request, ctx }) => {
    return simulateUpdate(ctx, await readJson(request, simulatedMessageSchema));
  },
  { role: "admin", to: "use the simulator" },
);
