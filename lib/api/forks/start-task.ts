import { refuseConversationOutOfScope } from "../../auth/bot-scope";
import type { Caller } from "../../auth/operators";
import type { Database } from "../../db/database";
import { parseDeliverAt } from "../../envelope/deliver-at";
import { startBackgroundTask } from "../../pipeline/forks";
import type { WorkerKick } from "../work";

/**
 * An operator starts a background fork in a conversation ("run this in the background: …");
 * another bot's conversation is a 404 to an agent limited to some bots, as an unknown one.
 * The worker looks for the task at once. `model`: the configured model, null without one (the fork then says so).
 */
export async function startTask(
  deps: { db: Database; worker: WorkerKick; model: unknown },
  input: { conversationId: number; task: string; deliverAt?: string | null },
  caller: Caller,
) {
  await refuseConversationOutOfScope(deps.db, caller.bots, input.conversationId);
  const started = await startBackgroundTask(deps.db, {
    conversationId: input.conversationId,
    task: input.task,
    from: `operator:${caller.operator.name}`,
    deliverAt: parseDeliverAt(input.deliverAt, new Date()),
    modelConfigured: deps.model !== null,
  });
  deps.worker.kick();
  return started;
}
