import { timingSafeEqual } from "node:crypto";
import { AppError } from "../../errors";
import { parseJson, readBody } from "../../http/respond";
import { log } from "../../log";
import type { InboundEvent } from "../types";
import type { TelegramChannel } from "./adapter";
import { parseUpdate } from "./parse";
import { updateSchema, type TgUpdate } from "./schema";

export const SECRET_HEADER = "x-telegram-bot-api-secret-token";
export const MAX_UPDATE_BYTES = 1 << 20;

/** What the Telegram webhook checks a delivery against: its bot's secret token and Bot API client. */
export type TelegramSource = { secret: string; channel: TelegramChannel };

function secretMatches(given: string | null, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A Telegram delivery, verified and parsed: the secret header compared in constant
 * time before the body is read, `application/json` only, at most 1 MiB, the Update's
 * shape (zod), then `parseUpdate`. Refusals throw an AppError (401, 415, 413, 400;
 * 503 while the bot's identity is unknown), so nothing is stored. Update kinds the
 * bot does not handle come back as an `ignored` event, logged here. grammY is the
 * Bot API client (`source.channel`), not a step here: its middleware would run the
 * same parse inside `handleUpdate` and hand the result back.
 */
export async function readTelegramUpdate(source: TelegramSource, request: Request): Promise<InboundEvent> {
  if (!secretMatches(request.headers.get(SECRET_HEADER), source.secret)) {
    throw new AppError("unauthorized", "wrong or missing secret token");
  }
  const type = request.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/json")) throw new AppError("unsupported_media_type", "expected application/json");
  const parsed = updateSchema.safeParse(parseJson(await readBody(request, MAX_UPDATE_BYTES)));
  if (!parsed.success) throw new AppError("bad_request", "body is not a Telegram Update", parsed.error.issues.slice(0, 5));
  if (source.channel.identityState().state !== "ready") {
    // Never wait on the Bot API here: Telegram re-delivers after a 503, by then getMe has answered.
    source.channel.identity().catch(() => {});
    throw new AppError("unavailable", "the bot's identity is not known yet (Bot API unreachable); deliver again later");
  }
  const update: TgUpdate = parsed.data;
  const event = parseUpdate(update, await source.channel.identity());
  if (event.type === "ignored") log.info("telegram.update_ignored", { updateId: update.update_id, reason: event.reason });
  return event;
}
