import { validateSignature, type webhook } from "@line/bot-sdk";
import { z } from "zod";
import { AppError } from "../../errors";
import { errorResponse, json, parseJson, readBody } from "../../http/respond";
import { log } from "../../log";
import type { InboundMessage } from "../types";
import { parseLineEvent } from "./parse";

export const SIGNATURE_HEADER = "x-line-signature";
const bodyShape = z.looseObject({
  destination: z.string().optional(),
  events: z.array(z.looseObject({ type: z.string(), timestamp: z.number(), webhookEventId: z.string().min(1), source: z.looseObject({ type: z.string() }).optional() })),
});

/**
 * POST /api/webhooks/line. Verifies X-Line-Signature (HMAC-SHA256 of the raw body
 * with the channel secret, constant time) before parsing; 401 and nothing stored
 * otherwise. Each message event goes through the same ingest as Telegram's.
 */
export function createLineWebhook(deps: { channelSecret: string; ingest: (message: InboundMessage) => Promise<unknown> }) {
  return async function handle(request: Request): Promise<Response> {
    try {
      const body = await readBody(request, 1 << 20);
      const signature = request.headers.get(SIGNATURE_HEADER);
      if (!signature || !validateSignature(body, deps.channelSecret, signature)) throw new AppError("unauthorized", "wrong or missing X-Line-Signature");
      const parsed = bodyShape.safeParse(parseJson(body));
      if (!parsed.success) throw new AppError("bad_request", "body is not a LINE webhook", parsed.error.issues.slice(0, 5));
      const results = [];
      const receivedAt = Date.now();
      for (const event of parsed.data.events as unknown as webhook.Event[]) {
        const inbound = parseLineEvent(event, receivedAt);
        results.push(inbound ? await deps.ingest(inbound) : { status: "ignored" });
      }
      return json({ ok: true, results });
    } catch (error) {
      if (!(error instanceof AppError)) log.error("line.webhook_failed", { error });
      return errorResponse(error);
    }
  };
}
