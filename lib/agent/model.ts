import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import type { Env } from "../env";

export type ModelHandle = { model: LanguageModel; provider: string; modelId: string };

/**
 * The one place a model is chosen, from LLM_PROVIDER / LLM_MODEL / LLM_BASE_URL /
 * LLM_API_KEY. Null when none is configured: messages are stored and operators
 * answer by hand. Tests pass their own ModelHandle (the AI SDK's mock model).
 */
export function modelFromEnv(env: Pick<Env, "LLM_PROVIDER" | "LLM_MODEL" | "LLM_BASE_URL" | "LLM_API_KEY">): ModelHandle | null {
  const { LLM_PROVIDER: provider, LLM_MODEL: modelId, LLM_BASE_URL: baseURL, LLM_API_KEY: apiKey } = env;
  if (!provider || !modelId) return null;
  switch (provider) {
    case "openai":
      return { provider, modelId, model: createOpenAI({ apiKey, baseURL }).chat(modelId) };
    case "anthropic":
      return { provider, modelId, model: createAnthropic({ apiKey, baseURL })(modelId) };
    case "openai-compatible":
      return { provider, modelId, model: createOpenAICompatible({ name: "llm", baseURL: baseURL!, apiKey })(modelId) };
  }
}
