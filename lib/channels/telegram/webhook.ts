import { timingSafeEqual } from "node:crypto";
import type { Update } from "grammy/types";
import { z } from "zod";
import { AppError } from "../../errors";
import { errorResponse, json, parseJson, readBody } from "../../http/respond";
import { log } from "../../log";
import type { InboundMessage } from "../types";
import type { TelegramChannel } from "./adapter";
import { parseUpdate } from "./parse";

export const SECRET_HEADER = "x-telegram-bot-api-secret-token";
export const MAX_UPDATE_BYTES = 1 << 20;

const messageShape = z.looseObject({
  message_id: z.number().int(),
  date: z.number().int().nonnegative(),
  chat: z.looseObject({ id: z.number().int(), type: z.string() }),
  text: z.string().max(1 << 16).optional(),
  caption: z.string().max(1 << 16).optional(),
});

/** Enough of an Update to trust the fields the parser reads; the rest passes through. */
export const updateShape = z.looseObject({
  update_id: z.number().int().nonnegative(),
  message: messageShape.optional(),
  edited_message: messageShape.optional(),
});

export type TelegramWebhookDeps = {
  secret: string;
  channel: TelegramChannel;
  /** Stores the message durably; resolves only after the commit. */
  ingest: (message: InboundMessage) => Promise<unknown>;
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
 * failure to store is a 500, so Telegram delivers the update again.
 */
export function createTelegramWebhook(deps: TelegramWebhookDeps) {
  const { bot } = deps.channel;
  const ingested = new WeakMap<object, unknown>();
  bot.on(["message", "edited_message"], async (ctx) => {
    const inbound = parseUpdate(ctx.update, await deps.channel.identity());
    if (inbound) ingested.set(ctx.update, await deps.ingest(inbound));
  });

  return async function handle(request: Request): Promise<Response> {
    try {
      if (!secretMatches(request.headers.get(SECRET_HEADER), deps.secret)) {
        throw new AppError("unauthorized", "wrong or missing secret token");
      }
      const type = request.headers.get("content-type") ?? "";
      if (!type.toLowerCase().startsWith("application/json")) throw new AppError("unsupported_media_type", "expected application/json");
      const parsed = updateShape.safeParse(parseJson(await readBody(request, MAX_UPDATE_BYTES)));
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
      return errorResponse(error instanceof Error && "error" in error && !(error instanceof AppError) ? (error as { error: unknown }).error : error);
    }
  };
}
