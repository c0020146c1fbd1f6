import type { LineRead } from "../channels/line/webhook";
import { readLineEvents } from "../channels/line/webhook";
import { readTelegramUpdate } from "../channels/telegram/webhook";
import type { InboundEvent } from "../channels/types";
import type { WebhookSource } from "../channels/webhook-source";
import { withArrival } from "../db/arrival";
import type { Database } from "../db/database";
import { AppError } from "../errors";
import { errorResponse, json } from "../http/respond";
import { log } from "../log";
import { channelOf, countIgnored, countIngested, observeWebhook } from "../metrics/record";
import { ingestEvent } from "../pipeline/ingest";
import type { TurnDeps } from "../pipeline/turn-deps";
import { traceIngest, traceWebhook } from "../tracing/wrap";

export type Platform = "telegram" | "line";

/** What receiving a platform's delivery needs; built once by the wiring, handed to each call. */
export type Inbound = {
  db: Database;
  turnDeps: TurnDeps;
  modelConfigured: boolean;
  mediaMaxBytes: number;
  /** The environment's bots (LINE's is null while its adapter is off: 503). */
  sources: { telegram: WebhookSource; line: WebhookSource | null };
  /** The bots added as records (lib/bots/runtime.ts): null for an unknown, disabled or removed bot (404). */
  bots: { sourceFor(platform: Platform, botId: number): Promise<WebhookSource | null> };
  /** Attachments are fetched after the acknowledgement, never on its path. */
  media: { wake(): void };
  /** A pending envelope gives the worker work, due after the burst debounce. */
  worker: { messageArrived(): void };
};

type Stored = Exclude<InboundEvent, { type: "ignored" }>;
type Received = Awaited<ReturnType<typeof ingestEvent>> | { status: "invalid" } | { status: "ignored"; reason: string };

/**
 * POST /api/webhooks/<platform>[/<botId>], top to bottom: the bot's source
 * (404 for an unknown one), the delivery verified and parsed
 * (`readTelegramUpdate`, `readLineEvents`), each event stored in one transaction
 * (`receiveEvent`), then 200. Nothing is acknowledged before its commit: a failure
 * to store is a 500 and the platform delivers again. A refusal is the AppError's
 * status with nothing stored.
 */
export function receiveWebhook(inbound: Inbound, platform: Platform, request: Request, botId?: number): Promise<Response> {
  // A webhook's database work is as old as its request (lib/db/arrival.ts).
  const arrivedAt = Date.now();
  const answer = (r: Request) => withArrival(arrivedAt, () => answerDelivery(inbound, r, platform, botId));
  return observeWebhook(platform, traceWebhook(platform, answer))(request);
}

async function answerDelivery(inbound: Inbound, request: Request, platform: Platform, botId: number | undefined): Promise<Response> {
  try {
    const source = await sourceOf(inbound, platform, botId);
    if (source.platform === "telegram") {
      const event = await readTelegramUpdate(source.telegram, request);
      return json({ ok: true, result: await receiveEvent(inbound, source, event) });
    }
    const results = [];
    // In order, each committed before the next: a failure leaves the earlier ones stored (duplicates on redelivery).
    for (const event of await readLineEvents(source.line, request)) results.push(await receiveEvent(inbound, source, event));
    return json({ ok: true, results });
  } catch (error) {
    if (!(error instanceof AppError)) log.error(`${platform}.webhook_failed`, { error });
    return errorResponse(error);
  }
}

async function sourceOf(inbound: Inbound, platform: Platform, botId: number | undefined): Promise<WebhookSource> {
  if (botId !== undefined) {
    const source = await inbound.bots.sourceFor(platform, botId);
    if (!source) throw new AppError("not_found", `no active ${platform} bot ${botId}`);
    return source;
  }
  const source = inbound.sources[platform];
  if (!source) throw new AppError("unavailable", "the LINE adapter is off: set LINE_CHANNEL_SECRET and LINE_CHANNEL_ACCESS_TOKEN");
  return source;
}

/**
 * One parsed event: an ignored or malformed one is counted and answered; any
 * other is stored (`ingestEvent`: one transaction, the settings read once) under
 * the adapter of the bot that received it, then the media job and the worker are
 * woken when it gave them work.
 */
export async function receiveEvent(inbound: Inbound, source: WebhookSource, read: LineRead): Promise<Received> {
  if (read.type === "invalid") return { status: "invalid" };
  if (read.type === "ignored") {
    countIgnored(source.platform, read.reason);
    return { status: "ignored", reason: read.reason };
  }
  const event = underAdapter(read, source.adapter);
  const channel = channelOf(event);
  const result = await traceIngest(channel, () =>
    ingestEvent(inbound.db, event, {
      modelConfigured: inbound.modelConfigured,
      deps: inbound.turnDeps,
      mediaMaxBytes: inbound.mediaMaxBytes,
    }),
  );
  countIngested(channel, result.status);
  if (result.status === "stored" && event.type === "message" && event.message.message.attachments?.length) inbound.media.wake();
  if (result.status === "stored" && result.answer) inbound.worker.messageArrived();
  return result;
}

/** The parser names events after the platform; a bot record's conversations carry its own adapter's name. */
function underAdapter(event: Stored, adapter: string): Stored {
  if (channelOf(event) === adapter) return event;
  return event.type === "message" ? { ...event, message: { ...event.message, channel: adapter } } : { ...event, channel: adapter };
}
