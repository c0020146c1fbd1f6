import { sameModelEndpoint } from "../agent/model";
import { randomBytes } from "node:crypto";
import { GrammyError } from "grammy";
import { z } from "zod";
import { botActivity, eraseBot, findBot, insertBot, listBots, setBotIdentity, updateBot, type BotChange, type BotRow } from "../db/bots";
import type { Database } from "../db/database";
import { writeBotChange } from "../db/settings";
import { AppError } from "../errors";
import { publish } from "../events/bus";
import { log } from "../log";
import { settingsUpdateSchema } from "../settings/schema";
import { botAgentOf, botModelSchema } from "../settings/bot-agent";
import { botSettingEntries } from "./bot-config";
import { checkLineChannel, checkTelegramToken } from "./platform-check";
import { deleteTelegramWebhook, platformSaid, platformUnreachable, setPlatformWebhook, type OpenCredentials } from "./platform-webhook";
import type { BotRuntime } from "./runtime";
import type { SecretBox } from "./secret-box";

/** What managing bots needs: the database, the key, the running bots and the platforms' roots. */
export type BotManagerDeps = {
  db: Database;
  box: SecretBox | null;
  runtime: BotRuntime;
  telegramApiRoot?: string;
  lineApiRoot?: string;
  /** The environment's LINE channel access token (LINE_CHANNEL_ACCESS_TOKEN), to learn that channel's identity. */
  envLineAccessToken?: string;
};

export const botCreateBody = z.discriminatedUnion("platform", [
  z.strictObject({
    platform: z.literal("telegram"),
    /** From @BotFather: "<bot id>:<secret>". */
    token: z
      .string()
      .trim()
      .regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, "a Telegram bot token looks like 123456789:AAH…"),
    name: z.string().trim().min(1).max(100).optional(),
  }),
  z.strictObject({
    platform: z.literal("line"),
    channelSecret: z.string().trim().min(8).max(200),
    channelAccessToken: z.string().trim().min(8).max(1000),
    name: z.string().trim().min(1).max(100).optional(),
  }),
]);
export type BotCreateBody = z.infer<typeof botCreateBody>;

export const botPatchBody = z.strictObject({
  name: z.string().trim().min(1).max(100).optional(),
  /**
   * active: answers; disabled: its webhook answers 404 and nothing is sent. A Telegram bot's
   * webhook is deleted at Telegram, which keeps its updates until it is enabled (see setStatusAtPlatform).
   */
  status: z.enum(["active", "disabled"]).optional(),
  /** The bot's own system instructions; null = the global ones. */
  instructions: z.string().max(4000).nullable().optional(),
  /** The bot's own model; null = the deployment's. `apiKey` is stored sealed and never returned. */
  model: botModelSchema
    .extend({ apiKey: z.string().min(1).max(500).optional() })
    .nullable()
    .optional(),
  /** Overrides of the global settings (any subset); null = inherit them all. */
  settings: settingsUpdateSchema.nullable().optional(),
});
export type BotPatchBody = z.infer<typeof botPatchBody>;

export const botWebhookBody = z.strictObject({
  /** The deployment's public https origin (or the full webhook URL); the bot's path is added. */
  publicUrl: z.url({ protocol: /^https?$/ }).max(500),
});

export const botRemoveQuery = z.object({ erase: z.enum(["true", "false"]).optional() });

/** The path a bot's platform delivers to. */
export function webhookPath(row: Pick<BotRow, "id" | "platform" | "source">): string {
  return row.source === "env" ? `/api/webhooks/${row.platform}` : `/api/webhooks/${row.platform}/${row.id}`;
}

/** A bot as the API shows it: never a credential (at most the token's last four characters). */
export function botView(row: BotRow, activity?: { conversations: number; lastMessageAt: Date | null }) {
  const agent = botAgentOf(row);
  return {
    id: row.id,
    platform: row.platform as "telegram" | "line",
    source: row.source as "env" | "api",
    adapter: row.adapter,
    name: row.name,
    username: row.username,
    pictureUrl: row.pictureUrl,
    status: row.status as "active" | "disabled" | "removed" | "sandbox",
    tokenHint: row.tokenHint,
    webhookPath: webhookPath(row),
    webhookUrl: row.webhookUrl,
    instructions: agent.instructions,
    model: agent.model ? { ...agent.model, hasApiKey: row.modelApiKey !== null } : null,
    settings: agent.settings,
    conversations: activity?.conversations ?? 0,
    lastMessageAt: activity?.lastMessageAt ?? null,
    createdAt: row.createdAt,
  };
}
export type BotView = ReturnType<typeof botView>;

export async function listBotViews(db: Database, options: { removed?: boolean } = {}) {
  const [rows, activity] = await Promise.all([listBots(db, options), botActivity(db)]);
  return rows.map((row) => botView(row, activity.get(row.id)));
}

async function existing(db: Database, id: number) {
  const row = await findBot(db, id);
  if (!row || row.status === "removed") throw new AppError("not_found", `no bot ${id}`);
  return row;
}

export async function getBotView(db: Database, id: number) {
  const row = await existing(db, id);
  return botView(row, (await botActivity(db)).get(row.id));
}

function needBox(box: SecretBox | null): SecretBox {
  if (!box) throw new AppError("unavailable", "no key to encrypt credentials with: set SWITCHBOARD_SECRET_KEY (docs/SECURITY.md)");
  return box;
}

/**
 * Adds a bot: the credentials are checked with the platform first (getMe, LINE's
 * bot info); a refusal is a 400 carrying the platform's answer and nothing is
 * stored; a bot already here is a 409 naming it (refuseAddedTwice). Credentials
 * and the webhook's secret are stored sealed.
 */
export async function createBot(deps: BotManagerDeps, body: BotCreateBody) {
  const box = needBox(deps.box);
  const check =
    body.platform === "telegram"
      ? await checkTelegramToken(body.token, deps.telegramApiRoot)
      : await checkLineChannel(body.channelAccessToken, deps.lineApiRoot);
  if (!check.ok)
    throw check.unreachable
      ? new AppError("bad_gateway", `the platform did not answer, nothing was added: ${check.answer}`, { platform: check.answer })
      : new AppError("bad_request", `the platform refused the credentials: ${check.answer}`, { platform: check.answer });
  if (body.platform === "line") await learnEnvLineIdentity(deps);
  const secret = body.platform === "telegram" ? body.token : body.channelAccessToken;
  const credentials =
    body.platform === "telegram"
      ? { token: body.token }
      : { channelSecret: body.channelSecret, channelAccessToken: body.channelAccessToken };
  const row = await insertBot(
    deps.db,
    {
      platform: body.platform,
      name: body.name ?? check.name,
      username: check.username,
      pictureUrl: check.pictureUrl,
      platformBotId: check.platformBotId,
      credentials: box.seal(JSON.stringify(credentials)),
      tokenHint: secret.slice(-4),
      // Telegram's secret_token: 1–256 characters of A–Z, a–z, 0–9, _ and -.
      webhookSecret: box.seal(randomBytes(32).toString("base64url")),
    },
    refuseAddedTwice,
  );
  await deps.runtime.sync();
  publish(deps.db, { type: "settings" });
  log.info("bots.added", { botId: row.id, platform: row.platform, username: row.username });
  return botView(row);
}

/**
 * The environment's LINE channel has no identity stored until asked (Telegram's comes
 * from its getMe at start): asked here, the one time it matters, so adding that channel
 * again through the API is refused like any other bot added twice.
 */
async function learnEnvLineIdentity(deps: BotManagerDeps) {
  if (!deps.envLineAccessToken) return;
  const row = await deps.db.prisma.bot.findUnique({ where: { adapter: "line" } });
  if (row?.source !== "env" || row.status !== "active" || row.platformBotId) return;
  const check = await checkLineChannel(deps.envLineAccessToken, deps.lineApiRoot);
  if (check.ok) await setBotIdentity(deps.db, row.id, { username: check.username, platformBotId: check.platformBotId });
  else log.warn("bots.env_line_identity_failed", { platform: check.answer });
}

/**
 * Refuses a bot the platform already delivers to another row: a second row would
 * register its own webhook over the first one's and take its updates. An api row
 * holds its identity until removed (disabled too: enabling sets its webhook again);
 * an environment's row only while its variables are set (active), as its identity
 * stays stored after they are unset.
 */
function refuseAddedTwice(holders: BotRow[]) {
  const holder = holders.find((row) => row.source === "api" || row.status === "active");
  if (!holder) return;
  const where =
    holder.source === "env"
      ? "as the bot configured by the environment: unset its variables and restart first (docs/DEPLOYMENT.md)"
      : `as bot ${holder.id}${holder.status === "disabled" ? " (disabled: enable it instead)" : ""}`;
  throw new AppError("conflict", `"${holder.name}" is already added ${where}`, { botId: holder.id });
}

/**
 * Tells Telegram about a status change, so a bot loses nothing while disabled:
 * disabling deletes its webhook keeping the pending updates (Telegram holds them up
 * to 24 hours), enabling sets the stored webhook again (its URL and secret) and
 * Telegram delivers what it held.
 * - Enabling asks Telegram first: a failure is a 502 and the bot stays disabled.
 * - Disabling is the operator's way to stop a bot, so it never waits on Telegram (a
 *   revoked token, an outage): the bot is disabled either way, and a failed
 *   deleteWebhook comes back as a warning (Telegram then keeps delivering to a
 *   webhook that answers 404, and gives those updates up after its retries).
 *
 * LINE holds nothing for a bot to collect later, so nothing is asked of it: events
 * sent to a disabled LINE bot are answered 404 and are lost.
 */
async function setStatusAtPlatform(deps: BotManagerDeps, row: BotRow, status: "active" | "disabled"): Promise<string | null> {
  if (row.platform !== "telegram" || row.status === status) return null;
  if (status === "disabled") {
    try {
      // Inside the try: credentials that no longer open (a missing or rotated key) must not keep a bot on either.
      await deleteTelegramWebhook(deps, credentialsOf(needBox(deps.box), row).token!);
      return null;
    } catch (error) {
      const said = platformSaid(error);
      log.warn("bots.delete_webhook_failed", { botId: row.id, platform: said });
      return `the bot is disabled, but Telegram's deleteWebhook failed (${said}): Telegram keeps delivering its updates to a webhook that answers 404 and gives them up after its retries; disable it again to retry`;
    }
  }
  if (!row.webhookUrl) return null;
  const box = needBox(deps.box);
  const credentials = credentialsOf(box, row);
  try {
    await setPlatformWebhook(deps, { platform: row.platform, credentials, secret: box.open(row.webhookSecret!), url: row.webhookUrl });
    return null;
  } catch (error) {
    const said = platformSaid(error);
    throw new AppError("bad_gateway", `Telegram's setWebhook failed, the bot stays ${row.status}: ${said}`, { platform: said });
  }
}

/**
 * Changes a bot's name, status or agent (instructions, model, overrides); null puts back
 * the inherited value. The agent's changes go in the settings' change log as `changedBy`'s,
 * in the same transaction. `warning`: the change is stored, but the platform did not take part of it.
 */
export async function changeBot(deps: BotManagerDeps, id: number, body: BotPatchBody, changedBy: string) {
  const row = await existing(deps.db, id);
  if (body.status && row.source === "env")
    throw new AppError("bad_request", "a bot configured by the environment is turned off by unsetting its variables");
  const change: BotChange = {};
  if (body.name !== undefined) change.name = body.name;
  if (body.status !== undefined) change.status = body.status;
  if (body.instructions !== undefined) change.instructions = body.instructions;
  if (body.settings !== undefined) change.settings = body.settings === null ? null : JSON.stringify(body.settings);
  if (body.model !== undefined) {
    if (body.model === null) {
      change.model = null;
      change.modelApiKey = null;
    } else {
      const { apiKey, ...model } = body.model;
      change.model = JSON.stringify(model);
      // Without a new key the stored one stays (the console never sees it to send it back),
      // but only for the same provider and endpoint: a stored key is never sent to a new address.
      const before = row.model ? (JSON.parse(row.model) as { provider?: string; baseUrl?: string }) : null;
      const sameEndpoint = before !== null && sameModelEndpoint(before, model);
      if (apiKey !== undefined) change.modelApiKey = needBox(deps.box).seal(apiKey);
      else if (!sameEndpoint) change.modelApiKey = null;
    }
  }
  // Last, once the rest of the change is known to be valid: the platform call cannot be taken back.
  const warning = body.status !== undefined ? await setStatusAtPlatform(deps, row, body.status) : null;
  // A status is stored only over the row read above (its updatedAt): quick toggles cannot
  // store an older decision over a newer one. The platform call already made stays made.
  const log = { entries: botSettingEntries(row, change), changedBy };
  if (!(await writeBotChange(deps.db, id, change, log, body.status !== undefined ? row : undefined)))
    throw new AppError("conflict", `bot ${id} was changed meanwhile (now ${(await existing(deps.db, id)).status}): try again`);
  await deps.runtime.sync();
  publish(deps.db, { type: "settings" });
  return { bot: await getBotView(deps.db, id), ...(warning ? { warning } : {}) };
}

function credentialsOf(box: SecretBox, row: BotRow) {
  if (!row.credentials) throw new AppError("bad_request", "this bot's credentials are not stored here (configured by the environment)");
  return JSON.parse(box.open(row.credentials)) as OpenCredentials;
}

/** The full webhook URL for a bot from the deployment's public origin (a full URL to the bot's path is kept). */
export function webhookUrlFor(row: BotRow, publicUrl: string): string {
  const path = webhookPath(row);
  const url = new URL(publicUrl);
  if (url.pathname.replace(/\/$/, "") === path) return url.toString();
  return `${url.origin}${url.pathname.replace(/\/$/, "")}${path}`;
}

/**
 * Tells the platform where to deliver: Telegram setWebhook with the URL, the bot's
 * secret_token and the update kinds the pipeline handles; LINE's webhook endpoint.
 * Reports what the platform said; a refusal is a 400 with its answer. A disabled
 * Telegram bot is refused (409): Telegram would deliver what it holds for the bot
 * to a webhook that answers 404, and give those updates up.
 */
export async function registerWebhook(deps: BotManagerDeps, id: number, publicUrl: string) {
  const box = needBox(deps.box);
  const row = await existing(deps.db, id);
  if (row.source === "env")
    throw new AppError(
      "bad_request",
      "a bot configured by the environment registers its webhook with scripts/telegram-webhook.mjs (docs/DEPLOYMENT.md)",
    );
  if (row.platform === "telegram" && row.status === "disabled")
    throw new AppError("conflict", `"${row.name}" is disabled: enable it first, then register its webhook`);
  const url = webhookUrlFor(row, publicUrl);
  const credentials = credentialsOf(box, row);
  let answer: string;
  try {
    answer = await setPlatformWebhook(deps, { platform: row.platform, credentials, secret: box.open(row.webhookSecret!), url });
  } catch (error) {
    const said = platformSaid(error);
    throw platformUnreachable(error)
      ? new AppError("bad_gateway", `the platform did not answer: ${said}`, { platform: said })
      : new AppError("bad_request", `the platform refused the webhook: ${said}`, { platform: said });
  }
  await updateBot(deps.db, id, { webhookUrl: url });
  publish(deps.db, { type: "settings" });
  return { bot: await getBotView(deps.db, id), platform: answer };
}

/**
 * Removes a bot: its webhook is deleted at the platform (best effort: a revoked
 * token cannot), it stops answering (its webhook answers 404), its credentials are
 * dropped, and its history stays readable (archived) unless `erase`.
 */
export async function removeBot(deps: BotManagerDeps, id: number, options: { erase: boolean }) {
  const row = await existing(deps.db, id);
  if (row.source === "env") throw new AppError("bad_request", "a bot configured by the environment is removed by unsetting its variables");
  let platform: string | null = null;
  if (row.platform === "telegram" && deps.box && row.credentials) {
    try {
      const { token } = credentialsOf(deps.box, row);
      await deleteTelegramWebhook(deps, token!);
      platform = "Webhook was deleted";
    } catch (error) {
      platform = error instanceof GrammyError ? `Telegram ${error.error_code}: ${error.description}` : (error as Error).message;
      log.warn("bots.delete_webhook_failed", { botId: id, error: platform });
    }
  }
  if (options.erase) await eraseBot(deps.db, id);
  else await updateBot(deps.db, id, { status: "removed", removedAt: new Date(), credentials: null, webhookUrl: null });
  await deps.runtime.sync();
  publish(deps.db, { type: "conversation" });
  log.info("bots.removed", { botId: id, erased: options.erase });
  return { ok: true as const, erased: options.erase, platform };
}
