import { timingSafeEqual } from "node:crypto";
import type { Update } from "grammy/types";
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
 * reading the body, validates the Update, runs it through grammY's handleUpdate
 * (whose middleware stores it) and answers 200 only once it is committed. A
 * failure to store is a 500, so Telegram delivers the update again. An update
 * whose fields we read have the wrong shape is a 400 with nothing stored; update
 * kinds the bot does not handle are acknowledged and the reason logged.
 */
export function createTelegramWebhook(deps: TelegramWebhookDeps) {
  const { bot } = deps.channel;
  const ingested = new WeakMap<object, unknown>();
  bot.use(async (ctx) => {
    const event = parseUpdate(ctx.update as unknown as TgUpdate, await deps.channel.identity());
    if (event.type === "ignored") {
      log.info("telegram.update_ignored", { updateId: ctx.update.update_id, reason: event.reason });
      ingested.set(ctx.update, { status: "ignored", reason: event.reason });
      deps.ignored?.(event.reason);
      return;
    }
    ingested.set(ctx.update, await deps.ingest(event));
  });

  return async function handle(request: Request): Promise<Response> {
    try {
      if (!secretMatches(request.headers.get(SECRET_HEADER), deps.secret)) {
        throw new AppError("unauthorized", "wrong or missing secret token");
      }
      const type = request.headers.get("content-type") ?? "";
      if (!type.toLowerCase().startsWith("application/json")) throw new AppError("unsupported_media_type", "expected application/json");
      const parsed = updateSchema.safeParse(parseJson(await readBody(request, MAX_UPDATE_BYTES)));
      if (!parsed.success) throw new AppError("bad_request", "body is not a Telegram Update", parsed.error.issues.slice(0, 5));
      const update = parsed.data as unknown as Update;
      if (deps.channel.identityState().state !== "ready") {
        // Never wait on the Bot API here: Telegram re-delivers after a 503, by then getMe has answered.
        deps.channel.identity().catch(() => {});
        throw new AppError("unavailable", "the bot's identity is not known yet (Bot API unreachable); deliver again later");
      }
      await bot.handleUpdate(update);
      return json({ ok: true, result: ingested.get(update) ?? { status: "ignored" } });
    } catch (error) {
      if (!(error instanceof AppError)) log.error("telegram.webhook_failed", { error: (error as { error?: unknown }).error ?? error });
      return errorResponse(
        error instanceof Error && "error" in error && !(error instanceof AppError) ? (error as { error: unknown }).error : error,
      );
    }
  };
}
