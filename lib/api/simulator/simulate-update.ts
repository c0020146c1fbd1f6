import type { Database } from "../../db/database";
import { findSimulatorTarget } from "../../db/simulator";
import { type SimulatedMessage, type SimulatorDeps, simulatedDelivery } from "../../channels/telegram/simulator";
import { type Inbound, receiveWebhook } from "../../inbound/receive-webhook";

/** The sandbox simulator: a user's message as a real Telegram Update, through the real webhook (its Response is the answer). */
export async function simulateUpdate(
  deps: Omit<SimulatorDeps, "findTarget"> & { db: Database; inbound: Inbound },
  input: SimulatedMessage,
) {
  const delivery = await simulatedDelivery({ ...deps, findTarget: (id) => findSimulatorTarget(deps.db, id) }, input);
  return receiveWebhook(deps.inbound, "telegram", delivery);
}
