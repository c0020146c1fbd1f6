import { z } from "zod";
import { agentNameProblem } from "../envelope/address";
import { defaultModelPrices, modelPricesSchema } from "../usage/prices";

/** An agent's name, as in its address agent:<name>. */
const agentName = z.string().superRefine((name, ctx) => {
  const problem = agentNameProblem(name);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/**
 * A whole number in [min, max], with messages the settings page shows as they are
 * (zod's own read "Too small: expected number to be >=1").
 */
export function whole(min: number, max: number) {
  return z
    .number({ error: "a whole number" })
    .int("a whole number")
    .min(min, `at least ${min.toLocaleString("en-US")}`)
    .max(max, `at most ${max.toLocaleString("en-US")}`);
}

/**
 * Operator-tunable thresholds. Stored one row per key; anything missing falls
 * back to these defaults, so a new setting needs no migration.
 */
export const settingsSchema = z.object({
  /** Last N messages always in context, regardless of age. */
  recencyWindow: whole(1, 200).default(10),
  /** Messages before and after a reply target included with it. */
  replyContextWindow: whole(0, 20).default(3),
  /** How many replied-to messages to follow up a reply chain. */
  replyChainDepth: whole(0, 10).default(3),
  /** A silence longer than this adds a gap note to the system prompt. */
  gapThresholdMinutes: whole(1, 60 * 24 * 30).default(15),
  /** Quoted text in a reply annotation is cut to this many characters. */
  quoteMaxChars: whole(20, 2000).default(200),
  /** A reply to a background fork's message resumes it while the fork is younger than this. */
  forkReplyTtlDays: whole(1, 365).default(7),
  /** An interactive fork's prompt quotes at most this many main-session messages sent since it began (the newest). */
  forkPendingUpdates: whole(0, 200).default(20),
  /** An interactive fork idle this long is warned, then reported and exited. */
  forkIdleMinutes: whole(1, 24 * 60).default(10),
  /** Groups: answer when addressed (mention, command, reply to the bot), always, or never. */
  groupAnswerMode: z.enum(["addressed", "all", "never"]).default("addressed"),
  /**
   * Messages a chat sends (Telegram sender_chat): "anonymous_admins" answers group
   * admins posting anonymously (people) like anyone else, but not channel posts or
   * the linked channel's automatic forwards; "all" answers those too; "none" none.
   */
  answerChatSenders: z.enum(["anonymous_admins", "all", "none"]).default("anonymous_admins"),
  /** The agent's name, as in its address agent:<name>. */
  agentName: agentName.default("main"),
  /** Extra instructions for the agent (persona, tone). */
  agentInstructions: z.string().max(4000).default("You are a helpful assistant in a chat."),
  /** Conversations answered at once; null = the server's WORKER_CONCURRENCY. */
  turnConcurrency: whole(1, 10_000).nullable().default(null),
  /** The ceiling of model calls in flight at once per provider (the limit in force adapts below it); null = the server's LLM_CONCURRENCY. */
  modelConcurrency: whole(1, 10_000).nullable().default(null),
  /** Quiet time (ms) after a user's last message before answering, so a burst gets one answer; null = BURST_DEBOUNCE_MS. */
  burstDebounceMs: whole(0, 60_000).nullable().default(null),
  /** Channel adapters each agent may send to: { "main": ["telegram"] }. */
  agentBindings: z.record(agentName, z.array(z.string().max(32)).max(16)).default({ main: ["telegram", "line"] }),
  /** A user's message that is exactly this command hands the conversation to a human at once (no model needed). */
  handoffCommand: z
    .string()
    .regex(/^\/[a-z0-9_]{1,32}$/, "a slash command: / then lowercase letters, digits or _")
    .default("/human"),
  /** Sent to the user when a handoff starts; empty = nothing is sent. */
  handoffWaitingMessage: z.string().max(1000).default("Thanks — a person from our team will reply here soon."),
  /** How long a handoff may wait for an operator before the user is told (once); it stays in the inbox. */
  handoffTimeoutMinutes: whole(1, 7 * 24 * 60).default(30),
  /** Sent once when nobody took the handoff in time; empty = nothing is sent. */
  handoffTimeoutMessage: z
    .string()
    .max(1000)
    .default("Sorry, everyone is busy right now. Your conversation is in our queue and a person will reply as soon as they can."),
  /** When the agent should hand off (in its system prompt); operators edit it here. */
  handoffGuidance: z
    .string()
    .max(2000)
    .default(
      "Call `handoff` when the user asks for a human, when the request is outside what you can do, when the user is frustrated, or when a decision needs a person.",
    ),
  /** While a user's turn runs, the chat shows the bot working (Telegram "typing…", LINE's loading animation). */
  typingIndicator: z.boolean().default(true),
  /**
   * Telegram private chats: the answer appears as the model writes it (sendMessageDraft),
   * then is sent once as usual. Off where the Bot API lacks the method (GET /status says so).
   */
  streamDrafts: z.boolean().default(true),
  /**
   * Handoffs one user may start (the command, or the agent's tool in answer to them)
   * within an hour, across all their conversations: a forum's topics are each a
   * conversation, and one user must not fill the inbox and the operators' chat.
   */
  handoffsPerUserPerHour: whole(1, 1000).default(3),
  /** A Telegram chat the bot tells about each new handoff (operators' group); null = none. */
  handoffTelegramChatId: z
    .string()
    .regex(/^-?\d{1,20}$/, "a Telegram chat id (digits, optionally -)")
    .nullable()
    .default(null),
  /**
   * The model is given the pictures of the messages in its context as images (photos,
   * image documents, static stickers), re-encoded; null = by provider: on for openai,
   * anthropic and the sandbox's demo model, off for openai-compatible (many local models have no vision).
   */
  modelSeesImages: z.boolean().nullable().default(null),
  /** The most images one turn sends the model, newest first; older pictures keep their text line. */
  maxImagesPerTurn: z.number().int().min(0).max(20).default(4),
  /**
   * Files of messages older than this many days lose their bytes (the attachment stays,
   * "failed" with the reason, so the timeline and the prompt still say what was there);
   * null = keep them as long as the messages.
   */
  mediaRetentionDays: z.number().int().min(1).max(3650).nullable().default(null),
  /**
   * Replays an agent (not an admin, not the API token) may run per UTC day, a dataset
   * run counting all its turns when it starts: each is a model call on the deployment's
   * key. 0 = agents may not replay.
   */
  replaysPerAgentPerDay: whole(0, 100_000).default(200),
  /** US dollars per million tokens, per provider and model: each turn's cost (lib/usage/prices.ts). */
  modelPrices: modelPricesSchema.default(defaultModelPrices),
});

export type Settings = z.infer<typeof settingsSchema>;
export type SettingKey = keyof Settings;
export const settingKeys = Object.keys(settingsSchema.shape) as SettingKey[];
export const defaultSettings: Settings = settingsSchema.parse({});

type SettingsShape = typeof settingsSchema.shape;
type WithoutDefaults = { [K in keyof SettingsShape]: z.ZodOptional<ReturnType<SettingsShape[K]["unwrap"]>> };

/**
 * Partial updates from the dashboard or API: unknown keys are refused, and a key
 * left out is left alone (zod's `.partial()` would fill it with its default).
 */
export const settingsUpdateSchema = z
  .object(
    Object.fromEntries(Object.entries(settingsSchema.shape).map(([key, field]) => [key, field.unwrap().optional()])) as WithoutDefaults,
  )
  .strict();
