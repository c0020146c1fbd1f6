import { createOpenAI } from "@ai-sdk/openai";
import { transcribe } from "ai";
import type { ModelConfig } from "./model";
import { modelTelemetry } from "../tracing/hooks";

/** Speech to text for voice notes, audio and video notes. */
export type Transcriber = {
  readonly modelId: string;
  transcribe(audio: Uint8Array, options: { abortSignal?: AbortSignal }): Promise<string>;
};

/**
 * The transcription model from TRANSCRIPTION_MODEL, through the AI SDK's
 * `transcribe` and OpenAI's transcription API (which OpenAI-compatible
 * servers also speak): TRANSCRIPTION_BASE_URL, else LLM_BASE_URL when the chat model
 * is OpenAI's or compatible, else OpenAI's own; TRANSCRIPTION_API_KEY, else
 * LLM_API_KEY when that is the chat model's own endpoint, else at OpenAI's own address
 * the SDK's OPENAI_API_KEY: a key never goes to an address it was not given for (an
 * Anthropic key to OpenAI, OPENAI_API_KEY to a local server). Null when
 * TRANSCRIPTION_MODEL is unset: the model gets kind and duration.
 */
export function transcriberFromEnv(
  env: Pick<ModelConfig, "LLM_PROVIDER" | "LLM_BASE_URL" | "LLM_API_KEY"> & {
    TRANSCRIPTION_MODEL?: string;
    TRANSCRIPTION_BASE_URL?: string;
    TRANSCRIPTION_API_KEY?: string;
  },
): Transcriber | null {
  const modelId = env.TRANSCRIPTION_MODEL;
  if (!modelId) return null;
  // Anthropic's and Google's APIs do not speak OpenAI's: their base URL is no transcription endpoint.
  const otherApi = env.LLM_PROVIDER === "anthropic" || env.LLM_PROVIDER === "google";
  const baseURL = env.TRANSCRIPTION_BASE_URL ?? (otherApi ? undefined : env.LLM_BASE_URL);
  const chatEndpoint = !otherApi && baseURL === env.LLM_BASE_URL;
  // An empty key is a string: the SDK sends it instead of reading OPENAI_API_KEY (lib/agent/model.ts).
  const apiKey = env.TRANSCRIPTION_API_KEY ?? (chatEndpoint ? env.LLM_API_KEY : undefined) ?? (baseURL === undefined ? undefined : "");
  const model = createOpenAI({ baseURL, apiKey }).transcription(modelId);
  return {
    modelId,
    async transcribe(audio, { abortSignal }) {
      const result = await transcribe({ model, audio, abortSignal, maxRetries: 1, telemetry: modelTelemetry() });
      return result.text.trim();
    },
  };
}
