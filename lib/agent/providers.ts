/**
 * The model providers a deployment, a bot or a replay can name (LLM_PROVIDER):
 * each is one case of `modelFromEnv` (lib/agent/model.ts). Kept apart from it so
 * the schemas that list them do not load the providers' SDKs.
 */
export const MODEL_PROVIDERS = ["openai", "anthropic", "google", "openai-compatible"] as const;

export type ModelProvider = (typeof MODEL_PROVIDERS)[number];
