import { recordId } from "../../record-id";
import type { Update } from "grammy/types";
import { z } from "zod";
import { AppError } from "../../errors";
import { TELEGRAM_USER_TEXT_LIMIT, tooLongError } from "../text-limit";
import { keepSandboxFile, sandboxMediaSchema, type SandboxMedia } from "./sandbox-files";
import { SECRET_HEADER } from "./webhook";

/** Telegram's limit for a media message's caption. */
const CAPTION_LIMIT = 1024;

/** What the simulator page sends: a user, a chat, a text or a file with a caption, optionally a reply. */
export const simulatedMessageSchema = z
  .object({
    chat: z.object({
      type: z.enum(["private", "group"]),
      id: z.number().int(),
      title: z.string().max(128).optional(),
    }),
    user: z.object({
      id: z.number().int().positive(),
      firstName: z.string().trim().min(1).max(64),
      username: z
        .string()
        .regex(/^[A-Za-z0-9_]{3,32}$/)
        .optional(),
    }),
    /** The message's text; with `media`, its caption (may be empty). */
    text: z.string().max(TELEGRAM_USER_TEXT_LIMIT, tooLongError(TELEGRAM_USER_TEXT_LIMIT)),
    /** A photo, document or voice note the sandbox holds (POST /simulator/files answered it). */
    media: sandboxMediaSchema.optional(),
    /** Stored message id (ours) to reply to. */
    replyToMessageId: recordId.optional(),
    /** A fragment of the replied-to text, as Telegram's quote. */
    quote: z.string().max(1024).optional(),
    /** Backdate the message, to try gap notes without waiting. */
    sentMinutesAgo: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 60)
      .optional(),
  })
  .superRefine((message, ctx) => {
    if (!message.media && message.text.length === 0)
      ctx.addIssue({ code: "custom", path: ["text"], message: "write a message or attach a file" });
    if (message.media && message.text.length > CAPTION_LIMIT)
      ctx.addIssue({
        code: "custom",
        path: ["text"],
        message: `a caption is at most ${CAPTION_LIMIT.toLocaleString("en-US")} characters (Telegram's limit)`,
      });
  });
export type SimulatedMessage = z.infer<typeof simulatedMessageSchema>;

export type ReplyTargetInfo = {
  platformMessageId: string;
  text: string;
  sentAt: Date;
  fromBot: boolean;
  senderName: string | null;
  senderId: string | null;
};

let counter = 0;
/** Ids for simulated updates and messages: unique and increasing within a process. */
export function nextSimulatorId(): number {
  counter = (counter + 1) % 1000;
  return Math.floor(Date.now() / 10) * 1000 + counter;
}

/**
 * Builds a real-shaped Telegram Update, with entities for @mentions and commands,
 * a reply_to_message and quote when replying, a photo, document or voice with its
 * caption, so the simulator exercises the same webhook, parser, media fetch and
 * pipeline as Telegram does.
 */
export function buildSimulatedUpdate(
  input: SimulatedMessage,
  bot: { id: number; username: string },
  target: ReplyTargetInfo | null,
): Update {
  const from = {
    id: input.user.id,
    is_bot: false,
    first_name: input.user.firstName,
    ...(input.user.username ? { username: input.user.username } : {}),
  };
  const chat =
    input.chat.type === "private"
      ? { id: input.chat.id, type: "private" as const, first_name: input.user.firstName }
      : { id: input.chat.id, type: "supergroup" as const, title: input.chat.title ?? "Sandbox group" };
  const entities = [...input.text.matchAll(/@[A-Za-z0-9_]{3,32}|^\/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?/g)].map((m) => ({
    type: m[0].startsWith("/") ? ("bot_command" as const) : ("mention" as const),
    offset: m.index!,
    length: m[0].length,
  }));
  const message = {
    message_id: nextSimulatorId(),
    date: Math.floor(Date.now() / 1000) - (input.sentMinutesAgo ?? 0) * 60,
    chat,
    from,
    // A file's words are its caption (caption_entities), as Telegram sends them.
    ...(input.media
      ? {
          [input.media.field]: input.media.value,
          ...(input.text ? { caption: input.text } : {}),
          ...(entities.length ? { caption_entities: entities } : {}),
        }
      : { text: input.text, ...(entities.length ? { entities } : {}) }),
    ...(target
      ? {
          reply_to_message: {
            message_id: Number(target.platformMessageId),
            date: Math.floor(target.sentAt.getTime() / 1000),
            chat,
            text: target.text,
            from: target.fromBot
              ? { id: bot.id, is_bot: true, first_name: "Bot", username: bot.username }
              : { id: Number(target.senderId) || 1, is_bot: false, first_name: target.senderName ?? "User" },
          },
          ...(input.quote && target.text.includes(input.quote)
            ? { quote: { text: input.quote, position: target.text.indexOf(input.quote) } }
            : {}),
        }
      : {}),
  };
  return { update_id: nextSimulatorId(), message } as unknown as Update;
}

export type SimulatorDeps = {
  telegram: { mode: "live" | "sandbox"; identity(): Promise<{ id: number; username: string }> };
  telegramSecret: string;
  findTarget: (messageId: number) => Promise<ReplyTargetInfo | null>;
};

/**
 * Plays a Telegram user: builds the Update as the delivery Telegram would make,
 * the secret added on the server, for the same webhook Telegram reaches. Refused
 * while a real bot token is configured (a simulated update would look real to everyone).
 */
export async function simulatedDelivery(deps: SimulatorDeps, input: SimulatedMessage): Promise<Request> {
  if (deps.telegram.mode !== "sandbox") throw new AppError("forbidden", "the simulator is off while a real Telegram bot is configured");
  const target = input.replyToMessageId ? await deps.findTarget(input.replyToMessageId) : null;
  if (input.replyToMessageId && !target) throw new AppError("not_found", "message to reply to not found");
  const update = buildSimulatedUpdate(input, await deps.telegram.identity(), target);
  return new Request("http://internal/api/webhooks/telegram", {
    method: "POST",
    headers: { "content-type": "application/json", [SECRET_HEADER]: deps.telegramSecret },
    body: JSON.stringify(update),
  });
}

/** The upload form's fields besides the file: what Telegram should call it. */
export const simulatedFileFields = z.object({ kind: z.enum(["photo", "document", "voice"]) });

/**
 * A file the simulator's user is about to send: kept as Telegram keeps a user's
 * upload (sandbox-files.ts) and answered as the Message field to send it in. Refused
 * while a real bot token is configured, like the simulator.
 */
export async function keepSimulatedFile(
  deps: { telegram: SimulatorDeps["telegram"]; put: Parameters<typeof keepSandboxFile>[0] },
  form: { file: { bytes: Uint8Array; name: string; declaredType: string }; fields: Record<string, string> },
): Promise<SandboxMedia> {
  if (deps.telegram.mode !== "sandbox") throw new AppError("forbidden", "the simulator is off while a real Telegram bot is configured");
  const { kind } = simulatedFileFields.parse(form.fields);
  return keepSandboxFile(deps.put, kind, form.file);
}
