import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { generateText } from "ai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { modelFromEnv, sameModelEndpoint } from "@/lib/agent/model";
import { transcriberFromEnv } from "@/lib/agent/transcription";

/**
 * The AI SDK reads OPENAI_API_KEY / ANTHROPIC_API_KEY when it is given no key. A model
 * an operator pointed at another address (a bot's, a replay's) must not carry it there.
 */
describe("which key a model sends", () => {
  let server: Server;
  let url: string;
  const seen: { authorization?: string; xApiKey?: string }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ authorization: req.headers.authorization, xApiKey: req.headers["x-api-key"] as string | undefined });
      req.resume();
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "no key", type: "invalid_request_error" } }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    process.env.OPENAI_API_KEY = "sk-env-openai-secret";
    process.env.ANTHROPIC_API_KEY = "sk-env-anthropic-secret";
  });
  afterEach(() => {
    seen.length = 0;
  });
  afterAll(async () => {
    delete process.env.OPENAI_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const call = async (provider: "openai" | "anthropic", processEnvKey?: boolean, key?: string) => {
    const handle = modelFromEnv({ LLM_PROVIDER: provider, LLM_MODEL: "m", LLM_BASE_URL: url, LLM_API_KEY: key }, { processEnvKey });
    await generateText({ model: handle!.model, prompt: "hi", maxRetries: 0 }).catch(() => {});
    return JSON.stringify(seen);
  };

  it("a model pointed elsewhere without a key of its own sends none, not the environment's", async () => {
    expect(await call("openai", false)).not.toContain("secret");
    expect(await call("anthropic", false)).not.toContain("secret");
    expect(seen.length).toBeGreaterThan(0);
  });

  it("voice-note transcription sends a key only to the address it was given for", async () => {
    type Keys = Partial<Parameters<typeof transcriberFromEnv>[0]>;
    const transcribe = async (env: Keys) => {
      seen.length = 0;
      const none = {
        TRANSCRIPTION_BASE_URL: undefined,
        TRANSCRIPTION_API_KEY: undefined,
        LLM_PROVIDER: undefined,
        LLM_BASE_URL: undefined,
        LLM_API_KEY: undefined,
      };
      await transcriberFromEnv({ ...none, ...env, TRANSCRIPTION_MODEL: "whisper-1" })!
        .transcribe(new Uint8Array([1, 2, 3]), {})
        .catch(() => {});
      expect(seen.length).toBeGreaterThan(0);
      return JSON.stringify(seen);
    };
    // A local OpenAI-compatible server without a key: not OPENAI_API_KEY.
    expect(await transcribe({ LLM_PROVIDER: "openai-compatible", LLM_BASE_URL: url })).not.toContain("secret");
    // Another transcription address: not the chat model's key.
    expect(await transcribe({ LLM_PROVIDER: "openai", LLM_API_KEY: "sk-chat-key", TRANSCRIPTION_BASE_URL: url })).not.toContain(
      "sk-chat-key",
    );
    // The chat model's own endpoint: its key; the transcription's own key wherever it points.
    expect(await transcribe({ LLM_PROVIDER: "openai-compatible", LLM_BASE_URL: url, LLM_API_KEY: "sk-chat-key" })).toContain(
      "Bearer sk-chat-key",
    );
    expect(await transcribe({ TRANSCRIPTION_BASE_URL: url, TRANSCRIPTION_API_KEY: "sk-stt" })).toContain("Bearer sk-stt");
  });

  it("its own key when it has one; the deployment's model still reads the provider's variable", async () => {
    expect(await call("openai", false, "sk-own")).toContain("Bearer sk-own");
    seen.length = 0;
    expect(await call("openai")).toContain("sk-env-openai-secret");
  });
});

describe("the same model endpoint", () => {
  it("is the same provider at the same address, a trailing slash aside; no base URL is the provider's own", () => {
    expect(
      sameModelEndpoint({ provider: "openai", baseUrl: "https://proxy/v1/" }, { provider: "openai", baseUrl: "https://proxy/v1" }),
    ).toBe(true);
    expect(sameModelEndpoint({ provider: "openai" }, { provider: "openai", baseUrl: null })).toBe(true);
    expect(sameModelEndpoint({ provider: "openai", baseUrl: "https://evil/v1" }, { provider: "openai" })).toBe(false);
    expect(sameModelEndpoint({ provider: "anthropic" }, { provider: "openai" })).toBe(false);
  });
});
