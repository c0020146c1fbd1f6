import { APICallError, wrapLanguageModel, type LanguageModel } from "ai";
import { spentQuota, streamedRefusal } from "../agent/call-limits";
import type { ModelHandle } from "../agent/model";
import { DeliveryError, type ChannelAdapter, type InboundEvent } from "../channels/types";
import { OTHER_MODEL_LABEL } from "./model-label";
import { metrics } from "./registry";

/**
 * The points where the app records its metrics, each a wrapper or a one-line
 * call at a seam of the wiring (webhooks, ingest, the worker's turns, the model,
 * the channel adapters), so the pipeline itself carries no metrics code.
 */

const since = (started: number) => (performance.now() - started) / 1000;

/** A webhook handler that counts its requests by status and times them. */
export function observeWebhook(channel: string, handler: (request: Request) => Promise<Response>) {
  return async (request: Request): Promise<Response> => {
    const m = metrics();
    if (!m) return handler(request);
    const started = performance.now();
    let status = 500;
    try {
      const response = await handler(request);
      status = response.status;
      return response;
    } finally {
      m.webhookRequests.inc({ channel, status: String(status) });
      m.webhookDuration.observe({ channel }, since(started));
    }
  };
}

/** The channel of a parsed update. */
export function channelOf(event: Exclude<InboundEvent, { type: "ignored" }>): string {
  return event.type === "message" ? event.message.channel : event.channel;
}

/** One update stored (or found a duplicate): `result` is the ingest result's status. */
export function countIngested(channel: string, result: string) {
  metrics()?.updatesIngested.inc({ channel, result });
}

const MAX_REASONS = 40;
const seenReasons = new Set<string>();

/**
 * Reasons are the parsers' fixed texts, except those naming what they did not
 * know (`unknown update field foo`), which lose the name. Past 40 distinct
 * reasons the rest count as "other": the label stays bounded whatever arrives.
 */
export function reasonLabel(reason: string): string {
  const label = reason.replace(/^(unknown (?:update field|event type)) .*$/, "$1").slice(0, 100);
  if (seenReasons.has(label)) return label;
  if (seenReasons.size >= MAX_REASONS) return "other";
  seenReasons.add(label);
  return label;
}

/** A turn in a chat that shows drafts, run without them because the instance was busy. */
export function countDraftShed() {
  metrics()?.draftsShed.inc();
}

/** One envelope taken over from a worker whose lease ran out. */
export function countTakeover() {
  metrics()?.takeovers.inc();
}

/** One update acknowledged and ignored. */
export function countIgnored(channel: string, reason: string) {
  metrics()?.updatesIgnored.inc({ channel, reason: reasonLabel(reason) });
}

/**
 * The worker's `run`, counting each agent turn by its outcome (thrown: `failed`,
 * or `rate_limited` when the provider paused it) and timing it. Other claimed
 * work (channel mail, background tasks) is timed by its sends and model calls.
 */
export function observeTurns<T extends { to: string; turn?: { kind: string } }, A>(run: (arg: A) => Promise<T>) {
  return async (arg: A): Promise<T> => {
    const m = metrics();
    if (!m) return run(arg);
    const started = performance.now();
    try {
      const outcome = await run(arg);
      if (outcome.to === "agent" && outcome.turn) {
        m.turns.inc({ outcome: outcome.turn.kind });
        m.turnDuration.observe(since(started));
      }
      return outcome;
    } catch (error) {
      const name = (error as Error)?.name;
      m.turns.inc({ outcome: name === "RateLimitedError" ? "rate_limited" : name === "LeaseLostError" ? "lease_lost" : "failed" });
      m.turnDuration.observe(since(started));
      throw error;
    }
  };
}

type Usage = { inputTokens?: { total?: number; cacheRead?: number }; outputTokens?: { total?: number } };

type ModelLabels = { provider: string; model: string };

/**
 * The model with every call (each step of a turn, summaries, background tasks)
 * timed and its tokens counted. Placed inside the provider's gate, so the time
 * is the provider's, not the wait for a slot. `modelLabel`: for a model someone
 * typed in (a replay's), the label it is counted under (lib/metrics/model-label.ts),
 * asked before each call; without it, the model's id (a configured model).
 */
export function instrumentModel(handle: ModelHandle, modelLabel?: (model: ModelLabels) => Promise<string>): ModelHandle {
  if (typeof handle.model === "string") return handle;
  const named = { provider: handle.provider, model: handle.modelId };
  const labelsNow = async (): Promise<ModelLabels> => {
    if (!modelLabel) return named;
    // A failed look-up counts the call as "other" rather than failing it.
    const model = await modelLabel(named).catch(() => OTHER_MODEL_LABEL);
    return { provider: handle.provider, model };
  };
  const observe = async <R>(call: () => PromiseLike<R>, streamed: boolean): Promise<R> => {
    const m = metrics();
    if (!m) return call();
    const labels = await labelsNow();
    const started = performance.now();
    try {
      const result = await call();
      if (streamed) return observeStream(result as R & { stream: ReadableStream<{ type: string; usage?: Usage }> }, labels, started);
      m.modelCallDuration.observe({ ...labels, result: "ok" }, since(started));
      countTokens(labels, (result as { usage?: Usage }).usage);
      return result;
    } catch (error) {
      const result = failureOf(error);
      if (result === "rate_limited") m.modelRateLimited.inc(labels);
      m.modelCallDuration.observe({ ...labels, result }, since(started));
      throw error;
    }
  };
  /**
   * A stream's usage arrives with its `finish` part, and the call lasts until its end: both are
   * read as it passes. A provider may answer 200 and then refuse inside the stream (an `error`
   * part): that call failed, and a rate limit counts as one.
   */
  const observeStream = <R extends { stream: ReadableStream<{ type: string; usage?: Usage; error?: unknown }> }>(
    result: R,
    labels: ModelLabels,
    started: number,
  ): R => {
    let timed = false;
    const done = (outcome: "ok" | "error" | "rate_limited") => {
      if (timed) return;
      timed = true;
      if (outcome === "rate_limited") metrics()?.modelRateLimited.inc(labels);
      metrics()?.modelCallDuration.observe({ ...labels, result: outcome }, since(started));
    };
    const stream = result.stream.pipeThrough(
      new TransformStream<{ type: string; usage?: Usage; error?: unknown }, { type: string; usage?: Usage; error?: unknown }>({
        transform(part, controller) {
          if (part.type === "finish") {
            countTokens(labels, part.usage);
            done("ok");
          } else if (part.type === "error") done(failureOf(part.error));
          controller.enqueue(part);
        },
        flush: () => done("ok"),
      }),
    );
    return { ...result, stream };
  };
  const model = wrapLanguageModel({
    model: handle.model as Exclude<LanguageModel, string> as Parameters<typeof wrapLanguageModel>[0]["model"],
    middleware: {
      specificationVersion: "v4",
      wrapGenerate: ({ doGenerate }) => observe(doGenerate, false),
      wrapStream: ({ doStream }) => observe(doStream, true),
    },
  });
  return { ...handle, model };
}

/** A failed call's label: the provider asked us to slow down (over HTTP, or inside its stream), or another failure. */
function failureOf(error: unknown): "rate_limited" | "error" {
  if (APICallError.isInstance(error))
    return [429, 503, 529].includes(error.statusCode ?? 0) && !spentQuota(error) ? "rate_limited" : "error";
  return streamedRefusal(error) ? "rate_limited" : "error";
}

function countTokens(labels: ModelLabels, usage: Usage | undefined) {
  const m = metrics();
  if (!m || !usage) return;
  const add = (type: string, n: number | undefined) => {
    if (typeof n === "number" && n > 0) m.modelTokens.inc({ ...labels, type }, n);
  };
  add("input", usage.inputTokens?.total);
  add("cached_input", usage.inputTokens?.cacheRead);
  add("output", usage.outputTokens?.total);
}

/** The adapter with each send counted by outcome: sent, or the DeliveryError's not_sent / unknown. */
export function instrumentChannel<C extends ChannelAdapter>(adapter: C): C {
  const send = adapter.send.bind(adapter);
  adapter.send = async (request) => {
    const m = metrics();
    if (!m) return send(request);
    try {
      const result = await send(request);
      m.sends.inc({ channel: adapter.name, outcome: "sent" });
      return result;
    } catch (error) {
      m.sends.inc({ channel: adapter.name, outcome: error instanceof DeliveryError ? error.outcome : "unknown" });
      throw error;
    }
  };
  return adapter;
}

/** One media download attempt (lib/media/fetch-job.ts): counted by source and outcome, and timed. */
export function observeMediaFetch(source: string, outcome: string, seconds: number) {
  const m = metrics();
  if (!m) return;
  // Sources are a fixed list in the schema; anything else counts as "other" so the label stays bounded.
  const label = ["telegram", "line", "url", "upload"].includes(source) ? source : "other";
  m.mediaDownloads.inc({ source: label, outcome });
  m.mediaDownloadDuration.observe({ source: label }, seconds);
}
