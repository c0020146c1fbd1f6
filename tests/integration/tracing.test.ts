import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { log } from "@/lib/log";
import { tracing } from "@/lib/tracing/hooks";
import { startTracing } from "@/lib/tracing/start";
import { update } from "../fixtures/telegram";
import { useHarness } from "../helpers/harness";

type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: Record<string, unknown> }[];
};

/**
 * An OTLP/HTTP JSON receiver on loopback (what a collector's otlp receiver takes
 * at /v1/traces), and the app exporting to it through the standard variables.
 */
describe("OpenTelemetry traces", () => {
  const received: { path: string; body: string }[] = [];
  let server: Server;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        received.push({ path: req.url ?? "", body: Buffer.concat(chunks).toString("utf8") });
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    // The exporter reads its endpoint from the environment, as in production.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${port}`;
    await startTracing({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_RECORD_CONTENT: false });
  });
  afterAll(async () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    await new Promise((resolve) => server.close(resolve));
  });
  const h = useHarness();

  it("exports one trace per inbound message: webhook, ingest, queue, turn, model call and send, without message text", async () => {
    expect(tracing()).not.toBeNull();
    expect((await h.t.post(update({ text: "my secret plans for tuesday" }))).status).toBe(200);
    await h.t.settle();
    await tracing()!.flush();

    expect(received.length).toBeGreaterThan(0);
    expect(received.every((r) => r.path === "/v1/traces")).toBe(true);
    const spans: OtlpSpan[] = received.flatMap((r) =>
      (JSON.parse(r.body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans.flatMap((rs) =>
        rs.scopeSpans.flatMap((ss) => ss.spans),
      ),
    );
    const webhook = spans.find((s) => s.name === "switchboard.webhook");
    expect(webhook).toBeDefined();
    const trace = spans.filter((s) => s.traceId === webhook!.traceId);
    const names = new Set(trace.map((s) => s.name));
    // The AI SDK's spans (GenAI semantic conventions): the turn's call, each step, each model request, each tool run.
    const modelCall = ["invoke_agent fake-model", "step 1", "chat fake-model", "execute_tool reply"];
    for (const name of [
      "switchboard.webhook",
      "switchboard.ingest",
      "switchboard.queue",
      "switchboard.turn",
      ...modelCall,
      "switchboard.send",
    ])
      expect(names, name).toContain(name);
    // One trace: every span of it descends from the webhook's.
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const root = (s: OtlpSpan): OtlpSpan => (s.parentSpanId && byId.has(s.parentSpanId) ? root(byId.get(s.parentSpanId)!) : s);
    expect(new Set(trace.map((s) => root(s).name))).toEqual(new Set(["switchboard.webhook"]));
    // The send happens inside the model's tool call, inside the turn.
    const ancestors = (s: OtlpSpan): string[] =>
      s.parentSpanId && byId.has(s.parentSpanId) ? [byId.get(s.parentSpanId)!.name, ...ancestors(byId.get(s.parentSpanId)!)] : [];
    expect(ancestors(trace.find((s) => s.name === "switchboard.send")!)).toEqual(
      expect.arrayContaining(["execute_tool reply", "switchboard.turn"]),
    );
    // The model request carries its token counts (the fake reports 12 in, 5 out).
    const chat = trace.find((s) => s.name === "chat fake-model")!;
    const attribute = (key: string) => chat.attributes?.find((a) => a.key === key)?.value;
    expect([attribute("gen_ai.usage.input_tokens"), attribute("gen_ai.usage.output_tokens")]).toEqual([{ intValue: 12 }, { intValue: 5 }]);
    // No message text anywhere: neither the user's nor the model's.
    const all = received.map((r) => r.body).join("\n");
    expect(all).not.toContain("secret plans");
    expect(all).not.toContain("Hello from the fake model");
  });

  it("log lines written inside a span carry its trace and span ids", async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      await tracing()!.span("test.span", {}, async () => log.error("test.inside_span"));
      log.error("test.outside_span");
    } finally {
      spy.mockRestore();
    }
    const inside = JSON.parse(lines.find((l) => l.includes("test.inside_span"))!) as Record<string, string>;
    const outside = JSON.parse(lines.find((l) => l.includes("test.outside_span"))!) as Record<string, string>;
    expect(inside.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(inside.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(outside.trace_id).toBeUndefined();
  });
});
