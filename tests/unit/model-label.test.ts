import { describe, expect, it } from "vitest";
import { boundedModelLabel } from "@/lib/metrics/model-label";

describe("boundedModelLabel", () => {
  const configured = [
    { provider: "openai", model: "gpt-4o" },
    { provider: "openai-compatible", model: "llama-3" },
  ];

  it("names a configured model by its id, and anything else as other", () => {
    expect(boundedModelLabel({ provider: "openai", model: "gpt-4o" }, configured)).toBe("gpt-4o");
    expect(boundedModelLabel({ provider: "openai-compatible", model: "llama-3" }, configured)).toBe("llama-3");
    expect(boundedModelLabel({ provider: "openai", model: "gpt-4o-typed-in" }, configured)).toBe("other");
    expect(boundedModelLabel({ provider: "openai", model: "" }, configured)).toBe("other");
  });

  it("needs the provider to match too: the same id at another provider is another model", () => {
    expect(boundedModelLabel({ provider: "anthropic", model: "gpt-4o" }, configured)).toBe("other");
    expect(boundedModelLabel({ provider: "openai", model: "gpt-4o" }, [])).toBe("other");
  });
});
