import { timingSafeEqual } from "node:crypto";
import { AppError } from "../../errors";
import { errorResponse, json, parseJson, readBody } from "../../http/respond";
import { log } from "../../log";
import type { InboundEvent } from "../types";
import type { TelegramChannel } from "./adapter";
import { parseUpdate } from "./parse";
import { updateSchema, type TgUpdate } from "./schema";

export const SECRET_HEADER = "x-telegram-bot-api-secret-token";
export const MAX_UPDATE_BYTES = 1 << 20;

export type TelegramWebhookDeps = {
  secret: string;
  channel: TelegramChannel;
  /** Stores the event durably; resolves only after the commit. */
  ingest: (event: Exclude<InboundEvent, { type: "ignored" }>) => Promise<unknown>;
  /** Told of each update acknowledged and ignored (metrics). */
  ignored?: (reason: string) => void;
};

function secretMatches(given: string | null, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * POST /api/webhooks/telegram. Verifies the secret header in constant time before
 * reading the body, validates the Update, parses it (`parseUpdate`) and stores it
 * (`deps.ingest`), answering 200 only once it is committed: each step calls the next
 * and returns. A failure to store is a 500, so Telegram delivers the update again.
 * An update whose fields we read have the wrong shape is a 400 with nothing stored;
 * update kinds the bot does not handle are acknowledged and the reason logged.
 * grammY is the Bot API client (`deps.channel`), not a step here: its middleware
 * would run the same parse inside `handleUpdate` and hand the result back.
 */
export function createTelegramWebhook(deps: TelegramWebhookDeps) {
  return async function handle(request: Request): Promise<Response> {
    try {
      if (!secretMatches(request.headers.get(SECRET_HEADER), deps.secret)) {
        throw new AppError("unauthorized", "wrong or missing secret token");
      }
      const type = request.headers.get("content-type") ?? "";
      if (!type.toLowerCase().startsWith("application/json")) throw new AppError("unsupported_media_type", "expected application/json");
      const parsed = updateSchema.safeParse(parseJson(await readBody(request, MAX_UPDATE_BYTES)));
      if (!parsed.success) throw new AppError("bad_request", "body is not a Telegram Update", parsed.error.issues.slice(0, 5));
      if (deps.channel.identityState().state !== "ready") {
        // Never wait on the Bot API here: Telegram re-delivers after a 503, by then getMe has answered.
        deps.channel.identity().catch(() => {});
        throw new AppError("unavailable", "the bot's identity is not known yet (Bot API unreachable); deliver again later");
      }
      const update: TgUpdate = parsed.data;
      const event = parseUpdate(update, await deps.channel.identity());
      if (event.type === "ignored") {
        log.info("telegram.update_ignored", { updateId: update.update_id, reason: event.reason });
        deps.ignored?.(event.reason);
        return json({ ok: true, result: { status: "ignored", reason: event.reason } });
      }
      return json({ ok: true, result: await deps.ingest(event) });
    } catch (error) {
      if (!(error instanceof AppError)) log.error("telegram.webhook_failed", { error });
      return errorResponse(error);
    }
  };
}
