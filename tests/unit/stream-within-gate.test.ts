import { describe, expect, it } from "vitest";
import { ProviderGate, streamWithinGate } from "@/lib/agent/call-limits";

/** A streamed call whose chunks the test hands out one by one. */
function streamedCall() {
  let push!: (chunk: string | null) => void;
  const stream = new ReadableStream<string>({
    start(controller) {
      push = (chunk) => (chunk === null ? controller.close() : controller.enqueue(chunk));
    },
  });
  return { call: async () => ({ stream }), push: (chunk: string | null) => push(chunk) };
}

async function readAll(stream: ReadableStream<string>) {
  const out: string[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<string>) out.push(chunk);
  return out;
}

describe("a streamed model call within the provider's limit", () => {
  it("holds its slot until its stream ends, not only until it starts", async () => {
    const gate = new ProviderGate("test", 1);
    const first = streamedCall();
    const { stream } = await streamWithinGate(gate, first.call);
    expect(gate.load()).toMatchObject({ active: 1 });
    let secondStarted = false;
    const second = streamWithinGate(gate, async () => {
      secondStarted = true;
      return { stream: new ReadableStream<string>({ start: (c) => c.close() }) };
    });
    first.push("a");
    const reading = readAll(stream);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(secondStarted).toBe(false);
    first.push("b");
    first.push(null);
    expect(await reading).toEqual(["a", "b"]);
    await second;
    expect(secondStarted).toBe(true);
  });

  it("a cancelled stream frees its slot", async () => {
    const gate = new ProviderGate("test", 1);
    const { stream } = await streamWithinGate(gate, streamedCall().call);
    expect(gate.load()).toMatchObject({ active: 1 });
    await stream.cancel("done early");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(gate.load()).toMatchObject({ active: 0 });
  });

  it("a call refused before its stream starts is the caller's error, and frees the slot", async () => {
    const gate = new ProviderGate("test", 1);
    await expect(streamWithinGate(gate, async () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    expect(gate.load()).toMatchObject({ active: 0 });
  });
});

describe("limitModel", () => {
  it("counts a streamed call against the limit until its stream is read", async () => {
    const { MockLanguageModelV4 } = await import("ai/test");
    const { limitModel } = await import("@/lib/agent/call-limits");
    const pending = [streamedCall(), streamedCall()];
    let calls = 0;
    const inner = new MockLanguageModelV4({ doStream: async () => pending[calls++].call() as never });
    const gate = new ProviderGate("test", 1);
    const limited = limitModel({ model: inner, provider: "test", modelId: "m" }, gate).model as unknown as {
      doStream: (o: object) => Promise<{ stream: ReadableStream<string> }>;
    };
    const first = await limited.doStream({ prompt: [] });
    const second = limited.doStream({ prompt: [] });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toBe(1);
    pending[0].push(null);
    await readAll(first.stream);
    await second;
    expect(calls).toBe(2);
  });
});
