import { validateSignature } from "@line/bot-sdk";
import { z } from "zod";
import { AppError } from "../../errors";
import { errorResponse, json, parseJson, readRawBody } from "../../http/respond";
import { log } from "../../log";
import type { InboundEvent } from "../types";
import { lineEventSchema, parseLineEvent } from "./parse";

export const SIGNATURE_HEADER = "x-line-signature";
/** The envelope of a webhook body; each event is validated on its own. */
const bodyShape = z.looseObject({ destination: z.string().optional(), events: z.array(z.unknown()).max(1000) });

export type LineWebhookDeps = {
  channelSecret: string;
  /** Stores the event durably; resolves only after the commit. */
  ingest: (event: Exclude<InboundEvent, { type: "ignored" }>) => Promise<unknown>;
  /** Told of each event acknowledged and ignored (metrics). */
  ignored?: (reason: string) => void;
};

/**
 * POST /api/webhooks/line. Verifies X-Line-Signature (HMAC-SHA256 of the raw body
 * bytes with the channel secret, constant time) before parsing; 401 and nothing
 * stored otherwise. Each event is validated and stored on its own: a malformed
 * one is logged and skipped while the others are stored, and the answer is 200
 * so LINE does not redeliver the good ones forever. Only a failure to store is a
 * 500 (LINE redelivers; the events already stored are duplicates then).
 */
export function createLineWebhook(deps: LineWebhookDeps) {
  return async function handle(request: Request): Promise<Response> {
    try {
      const body = await readRawBody(request, 1 << 20);
      const signature = request.headers.get(SIGNATURE_HEADER);
      if (!signature || !validateSignature(body, deps.channelSecret, signature))
        throw new AppError("unauthorized", "wrong or missing X-Line-Signature");
      const parsed = bodyShape.safeParse(parseJson(new TextDecoder().decode(body)));
      if (!parsed.success) throw new AppError("bad_request", "body is not a LINE webhook", parsed.error.issues.slice(0, 5));
      const results = [];
      const receivedAt = Date.now();
      for (const [index, raw] of parsed.data.events.entries()) {
        const event = lineEventSchema.safeParse(raw);
        if (!event.success) {
          log.warn("line.event_invalid", { index, issues: event.error.issues.slice(0, 3).map((i) => `${i.path.join(".")}: ${i.message}`) });
          results.push({ status: "invalid" });
          continue;
        }
        const inbound = parseLineEvent(event.data, receivedAt);
        if (inbound.type === "ignored") {
          log.info("line.event_ignored", { webhookEventId: event.data.webhookEventId, type: event.data.type, reason: inbound.reason });
          results.push({ status: "ignored", reason: inbound.reason });
          deps.ignored?.(inbound.reason);
          continue;
        }
        results.push(await deps.ingest(inbound));
      }
      return json({ ok: true, results });
    } catch (error) {
      if (!(error instanceof AppError)) log.error("line.webhook_failed", { error });
      return errorResponse(error);
    }
  };
}
