import { validateSignature } from "@line/bot-sdk";
import { z } from "zod";
import { AppError } from "../../errors";
import { parseJson, readRawBody } from "../../http/respond";
import { log } from "../../log";
import type { InboundEvent } from "../types";
import { lineEventSchema, parseLineEvent } from "./parse";

export const SIGNATURE_HEADER = "x-line-signature";
/** The envelope of a webhook body; each event is validated on its own. */
const bodyShape = z.looseObject({ destination: z.string().optional(), events: z.array(z.unknown()).max(1000) });

/** What the LINE webhook checks a delivery against: its channel's secret. */
export type LineSource = { channelSecret: string };

/** One event of a delivery: parsed (maybe ignored), or malformed and skipped. */
export type LineRead = InboundEvent | { type: "invalid" };

/**
 * A LINE delivery, verified and parsed: X-Line-Signature (HMAC-SHA256 of the raw
 * body bytes with the channel secret, constant time) before anything is parsed,
 * else a 401 and nothing stored. Each event is validated on its own: a malformed
 * one is logged and comes back `invalid` while the others are parsed, so LINE
 * does not redeliver the good ones forever.
 */
export async function readLineEvents(source: LineSource, request: Request): Promise<LineRead[]> {
  const body = await readRawBody(request, 1 << 20);
  const signature = request.headers.get(SIGNATURE_HEADER);
  if (!signature || !validateSignature(body, source.channelSecret, signature))
    throw new AppError("unauthorized", "wrong or missing X-Line-Signature");
  const parsed = bodyShape.safeParse(parseJson(new TextDecoder().decode(body)));
  if (!parsed.success) throw new AppError("bad_request", "body is not a LINE webhook", parsed.error.issues.slice(0, 5));
  const receivedAt = Date.now();
  return parsed.data.events.map((raw, index): LineRead => {
    const event = lineEventSchema.safeParse(raw);
    if (!event.success) {
      log.warn("line.event_invalid", { index, issues: event.error.issues.slice(0, 3).map((i) => `${i.path.join(".")}: ${i.message}`) });
      return { type: "invalid" };
    }
    const inbound = parseLineEvent(event.data, receivedAt);
    if (inbound.type === "ignored")
      log.info("line.event_ignored", { webhookEventId: event.data.webhookEventId, type: event.data.type, reason: inbound.reason });
    return inbound;
  });
}
