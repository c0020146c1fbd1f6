import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogle } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { createHttpFetch } from "./http-fetch";
import type { ModelProvider } from "./providers";

export type ModelHandle = {
  model: LanguageModel;
  provider: string;
  modelId: string;
  /** Each call is timed out by the provider's gate, from when it gets its slot (lib/agent/call-limits.ts): callers set no timeout. */
  callsTimeOut?: boolean;
};

/** The variables a model is chosen from (lib/env.ts validates them; a bot's or a replay's settings carry the same). */
export type ModelConfig = {
  LLM_PROVIDER?: ModelProvider;
  LLM_MODEL?: string;
  LLM_BASE_URL?: string;
  LLM_API_KEY?: string;
};

/** The providers' HTTP client: one keep-alive pool per process (lib/agent/http-fetch.ts says why not the global fetch). */
let sharedFetch: typeof fetch | undefined;
const httpFetch: typeof fetch = (input, init) => {
  sharedFetch ??= createHttpFetch();
  return sharedFetch(input, init);
};

/**
 * The one place a model is chosen, from LLM_PROVIDER / LLM_MODEL / LLM_BASE_URL /
 * LLM_API_KEY. Null when none is configured: messages are stored and operators
 * answer by hand. Tests pass their own ModelHandle (the AI SDK's mock model).
 */
export function modelFromEnv(
  env: ModelConfig,
  options: {
    /**
     * Without LLM_API_KEY the AI SDK reads the provider's own variable (OPENAI_API_KEY,
     * ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY). False for a model an operator pointed elsewhere (a bot's, a
     * replay's): the deployment's key must never go to an address someone typed in.
     */
    processEnvKey?: boolean;
  } = {},
): ModelHandle | null {
  const { LLM_PROVIDER: provider, LLM_MODEL: modelId, LLM_BASE_URL: baseURL } = env;
  // An empty key is a string: the SDK sends it (and the provider answers 401) instead of reading the environment.
  const apiKey = env.LLM_API_KEY ?? (options.processEnvKey === false ? "" : undefined);
  if (!provider || !modelId) return null;
  switch (provider) {
    case "openai":
      return { provider, modelId, model: createOpenAI({ apiKey, baseURL, fetch: httpFetch }).chat(modelId) };
    case "anthropic":
      return { provider, modelId, model: createAnthropic({ apiKey, baseURL, fetch: httpFetch })(modelId) };
    case "google":
      // Gemini through Google's Generative Language API (generateContent; streamGenerateContent for drafts).
      return { provider, modelId, model: createGoogle({ apiKey, baseURL, fetch: httpFetch })(modelId) };
    case "openai-compatible":
      // includeUsage: a streamed call (a turn that shows drafts) asks for the usage chunk; without it
      // OpenAI-compatible servers send none, and the turn would record no tokens and no cost.
      return {
        provider,
        modelId,
        model: createOpenAICompatible({ name: "llm", baseURL: baseURL!, apiKey, fetch: httpFetch, includeUsage: true })(modelId),
      };
  }
}

/**
 * Whether two model endpoints are the same address (a trailing slash aside; no base
 * URL is the provider's own): a key given for one may go to the other.
 */
export function sameModelEndpoint(a: { provider?: string; baseUrl?: string | null }, b: { provider?: string; baseUrl?: string | null }) {
  const address = (url: string | null | undefined) => (url ? url.replace(/\/+$/, "") : "");
  return a.provider === b.provider && address(a.baseUrl) === address(b.baseUrl);
}
