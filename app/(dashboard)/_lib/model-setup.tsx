/**
 * How to configure a model: one text for the settings page and the
 * conversations banner, matching lib/agent/model.ts and the README.
 */
export function ModelInstructions() {
  return (
    <span data-testid="model-instructions">
      Set <code>LLM_PROVIDER</code> (<code>openai</code>, <code>anthropic</code>, <code>google</code> or <code>openai-compatible</code>),{" "}
      <code>LLM_MODEL</code> (the model id) and <code>LLM_API_KEY</code> in the server&apos;s environment; for{" "}
      <code>openai-compatible</code> (Ollama, vLLM, LM Studio, OpenRouter) also <code>LLM_BASE_URL</code>, e.g.{" "}
      <code>http://localhost:11434/v1</code> (a local server may need no key). Then restart the server.
    </span>
  );
}

/** The demo model answers in the sandbox when nothing is configured (lib/agent/demo-model.ts). */
export const isDemoModel = (model: { provider: string } | null | undefined) => model?.provider === "demo";
