import { limitModel, ProviderGate } from "../agent/call-limits";
import { modelFromEnv, type ModelHandle, sameModelEndpoint } from "../agent/model";
import type { BotAgentRow } from "../db/settings-cache";
import type { Env } from "../env";
import { AppError } from "../errors";
import type { VariantModel } from "./variant";

/** At most this many other models' gates are kept per process (the oldest is dropped). */
const MAX_GATES = 32;

/** What a replay needs to find its model: the server's own (already behind its gate) and a gate per other model. */
export type ReplayModels = {
  /** The configured model, gated; null without one. */
  configured: ModelHandle | null;
  /** Builds (or reuses) a gated handle for another model. */
  other: (model: VariantModel) => ModelHandle;
  /** A bot's own model, from its row as read with the settings in force, if it has one (lib/bots). */
  ofBot?: (bot: BotAgentRow) => ModelHandle | undefined;
};

/**
 * The replay side of the wiring: another model gets its own provider gate (the same
 * adaptive limit and time limit as live turns), kept per provider, model and base URL.
 * Without an API key in the variant, the server's key is used when the provider and the
 * endpoint are the server's own: it is never sent to another address.
 */
export function createReplayModels(
  e: Pick<Env, "LLM_PROVIDER" | "LLM_MODEL" | "LLM_BASE_URL" | "LLM_API_KEY" | "LLM_CONCURRENCY">,
  configured: ModelHandle | null,
  timeoutMs: number,
  /** Wraps another model's handle before its gate, as the wiring wraps the configured one (metrics). */
  instrument: (handle: ModelHandle) => ModelHandle = (handle) => handle,
): ReplayModels {
  const gates = new Map<string, ProviderGate>();
  return {
    configured,
    other(model) {
      const sameProvider = model.provider === e.LLM_PROVIDER;
      const baseUrl = model.baseUrl ?? (sameProvider ? e.LLM_BASE_URL : undefined);
      // The server's key goes only to the server's own endpoint: another base URL needs its own key.
      const sameEndpoint = sameModelEndpoint({ provider: model.provider, baseUrl }, { provider: e.LLM_PROVIDER, baseUrl: e.LLM_BASE_URL });
      const apiKey = model.apiKey ?? (sameEndpoint ? e.LLM_API_KEY : undefined);
      if (model.provider === "openai-compatible" && !baseUrl)
        throw new AppError("bad_request", "an openai-compatible model needs its baseUrl", [
          { path: ["variant", "model", "baseUrl"], message: "required" },
        ]);
      const handle = modelFromEnv(
        { LLM_PROVIDER: model.provider, LLM_MODEL: model.model, LLM_BASE_URL: baseUrl, LLM_API_KEY: apiKey },
        // The provider's own variable only for its own address (no base URL) or the server's endpoint.
        { processEnvKey: baseUrl === undefined || sameEndpoint },
      );
      if (!handle) throw new AppError("bad_request", "the variant's model cannot be built");
      const key = `${model.provider}\u0000${model.model}\u0000${baseUrl ?? ""}`;
      let gate = gates.get(key);
      if (!gate) {
        if (gates.size >= MAX_GATES) gates.delete(gates.keys().next().value!);
        gate = new ProviderGate(model.provider, e.LLM_CONCURRENCY, Date.now, model.model, timeoutMs);
        gates.set(key, gate);
      }
      return limitModel(instrument(handle), gate);
    },
  };
}

/** "provider:model", as a turn records its model. */
export const modelName = (m: { provider: string; modelId: string }) => `${m.provider}:${m.modelId}`;

/**
 * The one place a replay's model is chosen: the variant's, else the model the turn
 * ran with — `recorded` ("provider:model") — which must still be its bot's own model
 * or the configured one. A model that is gone is a 409 saying
 * to pick one, never a 500.
 */
export function resolveReplayModel(
  models: ReplayModels,
  variantModel: VariantModel | undefined,
  recorded: string,
  botModel?: ModelHandle,
): ModelHandle {
  const configured = models.configured;
  if (variantModel) {
    const same =
      configured &&
      configured.provider === variantModel.provider &&
      configured.modelId === variantModel.model &&
      !variantModel.baseUrl &&
      !variantModel.apiKey;
    return same ? configured : models.other(variantModel);
  }
  if (botModel && modelName(botModel) === recorded) return botModel;
  if (configured && modelName(configured) === recorded) return configured;
  throw new AppError(
    "conflict",
    configured
      ? `the turn's model (${recorded}) is no longer configured (now ${modelName(configured)}): choose a model in the variant`
      : `the turn's model (${recorded}) is no longer configured: choose a model in the variant`,
  );
}
