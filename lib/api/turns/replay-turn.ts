import type { Caller } from "../../auth/operators";
import { checkVariantAccess } from "../../replay/access";
import { replayAsker } from "../../replay/quota";
import { type ReplayDeps, replayTurn as runReplay } from "../../replay/run-replay";
import type { ReplayRequest } from "../../replay/variant";
import { getReplay } from "../replays/get-replay";

/** Runs a turn again with a variant and answers the stored replay (an agent's count against their daily quota). */
export async function replayTurn(deps: ReplayDeps, turnId: number, request: ReplayRequest, caller: Caller) {
  checkVariantAccess(caller, request);
  const replayId = await runReplay(deps, turnId, request, replayAsker(caller));
  return getReplay(deps.db, replayId);
}
