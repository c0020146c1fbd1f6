import type { Database } from "../../db/database";
import { findSimulatorTarget } from "../../db/simulator";
import { type SimulatedMessage, type SimulatorDeps, simulateMessage } from "../../channels/telegram/simulator";

/** The sandbox simulator: a user's message as a real Telegram Update, through the real webhook handler (its Response is the answer). */
export function simulateUpdate(deps: Omit<SimulatorDeps, "findTarget"> & { db: Database }, input: SimulatedMessage) {
  return simulateMessage({ ...deps, findTarget: (id) => findSimulatorTarget(deps.db, id) }, input);
}
