import { botAgentOf } from "../settings/bot-agent";
import { listBots } from "../db/bots";
import type { Database } from "../db/database";
import { settingsFor } from "../settings/reader";

/** A model as the metrics name it: the provider (a fixed list) and the model's id. */
export type ModelName = { provider: string; model: string };

/** The `model` label of calls to a model nobody configured. */
export const OTHER_MODEL_LABEL = "other";

/**
 * The `model` label of a call: the model's id when it is a configured one, else "other".
 * A replay may name any model an agent types in: a label per typed name would add series
 * without bound (five replays, 85 series).
 *
 * @example boundedModelLabel({ provider: "openai", model: "gpt-4o" }, [{ provider: "openai", model: "gpt-4o" }]) // "gpt-4o"
 */
export function boundedModelLabel(call: ModelName, configured: readonly ModelName[]): string {
  return configured.some((c) => c.provider === call.provider && c.model === call.model) ? call.model : OTHER_MODEL_LABEL;
}

/** The models configured anywhere: the deployment's (LLM_PROVIDER, LLM_MODEL), bots' own and the price table's rows. */
export async function configuredModels(db: Database, deployment: ModelName | null): Promise<ModelName[]> {
  const [bots, { modelPrices }] = await Promise.all([listBots(db), settingsFor(db)]);
  return [
    ...(deployment ? [deployment] : []),
    ...bots.flatMap((bot) => {
      const own = botAgentOf(bot).model;
      return own ? [{ provider: own.provider, model: own.model }] : [];
    }),
    ...modelPrices.map(({ provider, model }) => ({ provider, model })),
  ];
}

/** The label of a call to `model` as configured now (read per call: a price row or a bot added later counts at once). */
export async function configuredModelLabel(db: Database, deployment: ModelName | null, model: ModelName): Promise<string> {
  return boundedModelLabel(model, await configuredModels(db, deployment));
}
