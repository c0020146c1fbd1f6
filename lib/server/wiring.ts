import { createHmac, randomBytes } from "node:crypto";
import { limitModel, ProviderGate } from "../agent/call-limits";
import { demoModel } from "../agent/demo-model";
import { modelFromEnv, type ModelHandle } from "../agent/model";
import { transcriberFromEnv } from "../agent/transcription";
import { ensureBootstrapOperator, newSetupCode } from "../auth/operators";
import { createTelegramChannel, type TelegramChannel } from "../channels/telegram/adapter";
import { createLineChannel, type LineHosts } from "../channels/line/adapter";
import type { ChannelAdapter } from "../channels/types";
import type { WebhookSource } from "../channels/webhook-source";
import type { Inbound } from "../inbound/receive-webhook";
import { UPLOAD_PACE_WINDOW_MS, UploadSlots } from "../http/upload-slots";
import { log } from "../log";
import type { ClaimedTurn } from "../db/claim";
import { openDb, postgresPoolSize, type Database } from "../db/database";
import { env, type Env } from "../env";
import { eventBus, type EventBus } from "../events/bus";
import { startPostgresRelay, type Relay } from "../events/postgres-relay";
import { LiveStreams } from "../events/live-streams";
import { blobStoreFor } from "../media/blob-store";
import { MediaFetcher } from "../media/fetch-job";
import { dispatchEnvelope } from "../pipeline/dispatch";
import { housekeeping } from "./housekeeping";
import { requestHandoff } from "../pipeline/handoff";
import { createReplayModels } from "../replay/models";
import type { ReplayDeps } from "../replay/run-replay";
import type { TurnDeps } from "../pipeline/turn-deps";
import { EnvelopeWorker, WORKER_LEASE_MS } from "../pipeline/worker";
import { shedDrafts } from "../pipeline/answer-draft";
import { eventLoopBusy } from "../pipeline/event-loop-busy";
import { settingsFor } from "../settings/reader";
import { throughput } from "../settings/throughput";
import { countTakeover, instrumentChannel, observeMediaFetch, instrumentModel, observeTurns } from "../metrics/record";
import { dbMetrics } from "../metrics/db";
import { configuredModelLabel } from "../metrics/model-label";
import { setMetricsEnabled } from "../metrics/registry";
import { ensureEnvBot, setBotIdentity } from "../db/bots";
import { sqlitePath } from "../db/migrations.mjs";
import type { BotManagerDeps } from "../bots/manage";
import { BotRuntime } from "../bots/runtime";
import { resealStale } from "../bots/rotate";
import { loadPreviousKey, loadSecretKey, secretBox } from "../bots/secret-box";
import { startTracing } from "../tracing/start";
import { traceChannel, traceTurns } from "../tracing/wrap";
import { processSingleton } from "../process-global";

/**
 * Everything a request handler needs, built once per process and kept on
 * globalThis (Next bundles route handlers and instrumentation separately, so a
 * module-level singleton would be duplicated). Tests build their own pieces.
 */
export type App = {
  env: Env;
  db: Database;
  telegram: TelegramChannel;
  channels: Record<string, ChannelAdapter>;
  model: ModelHandle | null;
  /** The model's call limits (adaptive concurrency under a ceiling, rate-limit pause); null without a model. */
  gate: ProviderGate | null;
  worker: EnvelopeWorker;
  /** The media fetch job: downloads attachments after the acknowledgement (lib/media/fetch-job.ts). */
  media: MediaFetcher;
  /** What pipeline steps need: database, channels, model, model timeout. */
  turnDeps: TurnDeps;
  /** What replays need (lib/replay): the database, the configured model and a gate per other model. */
  replay: ReplayDeps;
  /** The secret the Telegram webhook expects; random per process in the sandbox when unset. */
  telegramSecret: string;
  /** What the platforms' webhooks need (lib/inbound/receive-webhook.ts `receiveWebhook`). */
  inbound: Inbound;
  /** First-run setup needs it: SETUP_CODE, else random per process and printed to the server log at start. */
  setupCode: string;
  /** Bots added as records: their adapters, webhooks and models (lib/bots). */
  bots: BotManagerDeps;
  /** What changed, for GET /api/v1/events (this database's bus). */
  events: EventBus;
  /** On PostgreSQL: carries events between instances (LISTEN/NOTIFY); null on SQLite (one process). */
  relay: Relay | null;
  /** The open GET /api/v1/events streams, capped per session and in all. */
  liveStreams: LiveStreams;
  /** The operator uploads being handled at once (POST /conversations/{id}/media), capped by memory. */
  uploads: UploadSlots;
  /** The key of signed media links (lib/media/signed-url.ts): MEDIA_URL_SECRET, else derived from the secret key, else random per process. */
  mediaUrlSecret: string;
};

/**
 * What this process keeps of the app in its one global (lib/process-global.ts): the app (getApp), the
 * shutdown scripts/start.mjs calls on SIGTERM (lib/server/shutdown.ts) and the
 * pending setup code it prints, for start.mjs lives outside Next's bundles.
 */
export type ProcessHolder = {
  context?: Promise<App>;
  shutdown?: (deadlineMs: number) => Promise<void>;
  /** Set while no operator exists: scripts/start.mjs prints it with the setup page's URL. */
  setupCode?: string;
};
export const processHolder: ProcessHolder = processSingleton<ProcessHolder>("app", () => ({}));

export type AppOverrides = {
  /** A model to use instead of the one LLM_* describes (tests: the AI SDK's mock). */
  model?: ModelHandle | null;
  /** Worker lease (30 s; lib/pipeline/worker.ts), the age of a send a stopped process left (4 × the model timeout) and backoff, shortened in tests. */
  leaseMs?: number;
  staleSendMs?: number;
  backoffMs?: (attempts: number) => number;
  pollMs?: number;
  /** How long a provider refusing every call is waited for (lib/agent/call-limits.ts), shortened in tests. */
  refusingForGoodMs?: number;
  /** Media downloads: attempts, backoff and timeout, shortened in tests (or the deadline ended by the test). */
  media?: {
    maxAttempts?: number;
    backoffMs?: (attempts: number) => number;
    timeoutMs?: number;
    deadline?: (timeoutMs: number) => AbortSignal;
  };
};

/**
 * Wires the application from an environment and a database: channels, model,
 * worker and webhook handler. The server calls it once; integration tests call it
 * with a temporary database and loopback fakes of Telegram and the model.
 *
 * Each part is built from those before it. The turn reads the load of the worker
 * that runs it through one closure, `draftsShed` (the worker is built after them).
 */
export async function createApp(e: Env, db: Database, overrides: AppOverrides = {}): Promise<App> {
  await ensureBootstrapOperator(db, e.ADMIN_USERNAME, e.ADMIN_PASSWORD);
  setMetricsEnabled(e.METRICS_ENABLED);
  const { telegram, channels, lineHosts } = envChannels(e, db);
  const { configured, model, gate, timeoutMs } = modelAndGate(e, telegram, overrides);
  const { key, box } = await openSecretBox(e, db);
  const envTelegram = await ensureEnvBots(e, db, telegram);
  const runtime = new BotRuntime(botRuntimeDeps(e, db, { box, lineHosts, channels, timeoutMs }));
  const turnDeps: TurnDeps = {
    db,
    channels,
    model,
    timeoutMs,
    requestHandoff,
    transcriber: transcriberFromEnv(e),
    modelFor: (bot) => runtime.modelFor(bot),
    draftsShed: () => shedDrafts(worker.load().running, eventLoopBusy()),
  };
  const replay = replayDeps(e, db, { configured, model, timeoutMs, runtime });
  await runtime.sync();
  const media = mediaFetcher(e, db, channels, overrides);
  const worker = envelopeWorker(e, db, { turnDeps, runtime, media, gate, timeoutMs, overrides });
  const telegramSecret = e.TELEGRAM_WEBHOOK_SECRET ?? randomBytes(24).toString("base64url");
  const inbound: Inbound = {
    db,
    turnDeps,
    modelConfigured: model !== null,
    mediaMaxBytes: e.MEDIA_MAX_BYTES,
    sources: envSources(e, telegram, telegramSecret),
    bots: runtime,
    media,
    worker,
  };
  worker.start();
  media.start();
  learnTelegramIdentity(db, telegram, envTelegram.id);
  return {
    env: e,
    db,
    telegram,
    channels,
    model,
    gate,
    worker,
    media,
    turnDeps,
    replay,
    telegramSecret,
    inbound,
    bots: {
      db,
      box,
      runtime,
      telegramApiRoot: e.TELEGRAM_API_ROOT,
      lineApiRoot: e.LINE_API_ROOT,
      envLineAccessToken: e.LINE_CHANNEL_ACCESS_TOKEN,
    },
    setupCode: e.SETUP_CODE ?? newSetupCode(),
    events: eventBus(db),
    relay: db.dialect === "postgresql" ? startPostgresRelay(db, e.DATABASE_URL) : null,
    liveStreams: new LiveStreams({ perHolder: e.LIVE_STREAMS_PER_SESSION, total: e.LIVE_STREAMS_TOTAL }),
    uploads: new UploadSlots(e.MEDIA_MAX_BYTES, { bytesPerSecond: e.MEDIA_UPLOAD_MIN_BYTES_PER_SECOND, windowMs: UPLOAD_PACE_WINDOW_MS }),
    mediaUrlSecret: mediaUrlSecret(e, key),
  };
}

/** Metrics and traces of sends, at the adapters (lib/metrics, lib/tracing). */
function observed<C extends ChannelAdapter>(adapter: C): C {
  return traceChannel(instrumentChannel(adapter));
}

/**
 * The environment's channels: Telegram (sandbox without a token) and LINE with its access token (else
 * its webhook answers 503). The record is the live registry the bot runtime adds bots' adapters to.
 */
function envChannels(e: Env, db: Database) {
  const telegram = observed(
    createTelegramChannel({
      token: e.TELEGRAM_BOT_TOKEN,
      apiRoot: e.TELEGRAM_API_ROOT,
      sandboxUsername: e.SANDBOX_BOT_USERNAME,
      sandboxFiles: async (sha256) => (await blobStoreFor(db).get(sha256))?.bytes ?? null,
    }),
  );
  // The environment's LINE channel and those added as records reach LINE at the same hosts.
  const lineHosts: LineHosts = { apiRoot: e.LINE_API_ROOT, dataApiRoot: e.LINE_DATA_API_ROOT };
  const channels: Record<string, ChannelAdapter> = {
    telegram,
    ...(e.LINE_CHANNEL_ACCESS_TOKEN
      ? { line: observed(createLineChannel({ ...lineHosts, accessToken: e.LINE_CHANNEL_ACCESS_TOKEN })) }
      : {}),
  };
  return { telegram, channels, lineHosts };
}

/** The configured model (or the demo model in the sandbox), its call limits, and the model timeout. */
function modelAndGate(e: Env, telegram: TelegramChannel, overrides: AppOverrides) {
  // In the sandbox (no platform token) with no model configured, the labelled demo model answers;
  // with a real Telegram or LINE token it never does.
  const sandbox = telegram.mode === "sandbox" && !e.LINE_CHANNEL_ACCESS_TOKEN;
  const configured = overrides.model !== undefined ? overrides.model : (modelFromEnv(e) ?? (sandbox ? demoModel() : null));
  const timeoutMs = e.LLM_TIMEOUT_SECONDS * 1000;
  const gate = configured
    ? new ProviderGate(configured.provider, e.LLM_CONCURRENCY, Date.now, configured.modelId, timeoutMs, overrides.refusingForGoodMs)
    : null;
  // Timed inside the gate: the provider's time, not the wait for a slot.
  const model = configured && gate ? limitModel(instrumentModel(configured), gate) : null;
  return { configured, model, gate, timeoutMs };
}

/** Bot credentials are sealed with this key (lib/bots/secret-box.ts); null on PostgreSQL without SWITCHBOARD_SECRET_KEY. */
async function openSecretBox(e: Env, db: Database) {
  const key = loadSecretKey({ envKey: e.SWITCHBOARD_SECRET_KEY, sqliteFile: db.dialect === "sqlite" ? sqlitePath(e.DATABASE_URL) : null });
  const box = key ? secretBox(key, loadPreviousKey(e.SWITCHBOARD_SECRET_KEY_PREVIOUS)) : null;
  if (box) await resealStale(db, box);
  return { key, box };
}

/** The environment's bots are rows too (listed, with their own agent settings); their credentials stay in the environment. */
async function ensureEnvBots(e: Env, db: Database, telegram: TelegramChannel) {
  const envTelegram = await ensureEnvBot(db, {
    platform: "telegram",
    name: telegram.mode === "sandbox" ? "Sandbox bot" : "Telegram (environment)",
    username: telegram.mode === "sandbox" ? e.SANDBOX_BOT_USERNAME : null,
    status: telegram.mode === "sandbox" ? "sandbox" : "active",
  });
  if (e.LINE_CHANNEL_ACCESS_TOKEN || (await db.prisma.bot.count({ where: { adapter: "line" } })))
    await ensureEnvBot(db, {
      platform: "line",
      name: "LINE (environment)",
      username: null,
      status: e.LINE_CHANNEL_ACCESS_TOKEN ? "active" : "disabled",
    });
  return envTelegram;
}

/** What the runtime of bots added as records needs (lib/bots/runtime.ts). */
function botRuntimeDeps(
  e: Env,
  db: Database,
  parts: { box: BotManagerDeps["box"]; lineHosts: LineHosts; channels: Record<string, ChannelAdapter>; timeoutMs: number },
): ConstructorParameters<typeof BotRuntime>[0] {
  return {
    db,
    box: parts.box,
    telegramApiRoot: e.TELEGRAM_API_ROOT,
    lineHosts: parts.lineHosts,
    channels: parts.channels,
    observe: observed,
    model: {
      timeoutMs: parts.timeoutMs,
      ceiling: () => e.LLM_CONCURRENCY,
      instrument: (handle) => instrumentModel(handle),
      deployment: { provider: e.LLM_PROVIDER, baseUrl: e.LLM_BASE_URL, apiKey: e.LLM_API_KEY },
    },
  };
}

/** What replays need: a replay may name any model; its calls are labelled by it only when it is a configured one, else "other". */
function replayDeps(
  e: Env,
  db: Database,
  parts: { configured: ModelHandle | null; model: ModelHandle | null; timeoutMs: number; runtime: BotRuntime },
): ReplayDeps {
  const { configured, runtime } = parts;
  const deployment = configured ? { provider: configured.provider, model: configured.modelId } : null;
  const bounded = (handle: ModelHandle) => instrumentModel(handle, (named) => configuredModelLabel(db, deployment, named));
  return {
    db,
    models: { ...createReplayModels(e, parts.model, parts.timeoutMs, bounded), ofBot: (bot) => runtime.modelFor(bot) },
    timeoutMs: parts.timeoutMs,
  };
}

/** The media fetch job: the bot that received the file fetches it (a Telegram file id is valid for that bot only). */
function mediaFetcher(e: Env, db: Database, channels: Record<string, ChannelAdapter>, overrides: AppOverrides) {
  return new MediaFetcher({
    db,
    adapterFor: (attachment) => channels[attachment.channel],
    maxBytes: e.MEDIA_MAX_BYTES,
    timeoutMs: overrides.media?.timeoutMs ?? e.MEDIA_FETCH_TIMEOUT_SECONDS * 1000,
    allowInsecureUrls: e.MEDIA_ALLOW_INSECURE_URLS,
    maxAttempts: overrides.media?.maxAttempts,
    backoffMs: overrides.media?.backoffMs,
    deadline: overrides.media?.deadline,
    observe: observeMediaFetch,
  });
}

/** The worker that runs turns, with housekeeping, bot sync and media retries on its tick. */
function envelopeWorker(
  e: Env,
  db: Database,
  parts: {
    turnDeps: TurnDeps;
    runtime: BotRuntime;
    media: MediaFetcher;
    gate: ProviderGate | null;
    timeoutMs: number;
    overrides: AppOverrides;
  },
) {
  const { turnDeps, runtime, media, gate, overrides } = parts;
  // Renewed every third of it while a turn runs (however long its model calls take), so it
  // only bounds how long a dead instance's conversations wait before another takes them.
  const leaseMs = overrides.leaseMs ?? WORKER_LEASE_MS;
  // A send (outbound envelope written, the platform called) still in flight after this was cut
  // by a stopped process: far past the platform calls' 30 s limit, and past a whole turn.
  const staleSendMs = overrides.staleSendMs ?? parts.timeoutMs * 4;
  return new EnvelopeWorker({
    db,
    run: traceTurns(observeTurns((turn: ClaimedTurn) => dispatchEnvelope(turnDeps, turn))),
    onTick: async () => {
      // Bots added or changed on another instance start here within seconds.
      await runtime.syncAtMost(5_000).catch((error) => log.error("bots.sync_failed", { error: (error as Error).message }));
      // Downloads a crashed instance left, and retries now due, are picked up on the tick too.
      media.wake();
      return housekeeping(turnDeps, staleSendMs);
    },
    // Read before every drain (settings are cached for a second): a change applies without a restart.
    limits: async () => {
      const limits = throughput(await settingsFor(db), e);
      gate?.setCeiling(limits.modelConcurrency);
      runtime.setCeiling(limits.modelConcurrency);
      return { turns: limits.turnConcurrency, debounceMs: limits.burstDebounceMs };
    },
    modelPausedUntil: () => gate?.pausedUntil() ?? null,
    pollMs: overrides.pollMs,
    leaseMs,
    onTakeover: countTakeover,
    maxAttempts: 4,
    backoffMs: overrides.backoffMs ?? ((attempts) => Math.min(5_000 * 2 ** (attempts - 1), 5 * 60_000)),
  });
}

/** The environment's bots' webhooks: Telegram's (the sandbox's without a token) and LINE's, off without its secret and token. */
function envSources(e: Env, telegram: TelegramChannel, secret: string): Inbound["sources"] {
  const line: WebhookSource | null =
    e.LINE_CHANNEL_ACCESS_TOKEN && e.LINE_CHANNEL_SECRET
      ? { platform: "line", adapter: "line", line: { channelSecret: e.LINE_CHANNEL_SECRET } }
      : null;
  return { telegram: { platform: "telegram", adapter: "telegram", telegram: { secret, channel: telegram } }, line };
}

/** In the background, bounded: the webhook answers 503 until the bot's identity is known. */
function learnTelegramIdentity(db: Database, telegram: TelegramChannel, botId: number) {
  telegram
    .identity()
    .then((identity) =>
      telegram.mode === "live" ? setBotIdentity(db, botId, { username: identity.username, platformBotId: String(identity.id) }) : null,
    )
    .catch(() => {});
}

/**
 * Links LINE fetches may outlive this process: derived from the secret key when there is one
 * (the same on every restart and instance that shares it), else random per process.
 */
function mediaUrlSecret(e: Env, key: Buffer | null) {
  return (
    e.MEDIA_URL_SECRET ??
    (key ? createHmac("sha256", key).update("switchboard media links").digest("base64url") : randomBytes(32).toString("base64url"))
  );
}

async function build(): Promise<App> {
  const e = env();
  // Before anything runs, so the first webhook is traced; loads nothing without OTEL_EXPORTER_OTLP_ENDPOINT.
  const tracingStarted = await startTracing(e);
  if (tracingStarted) log.info("tracing.started", tracingStarted);
  return createApp(
    e,
    await openDb(e.DATABASE_URL, {
      backgroundCheckpoints: true,
      poolSize: e.DATABASE_POOL_SIZE ?? postgresPoolSize(e.WORKER_CONCURRENCY),
      observer: dbMetrics,
    }),
  );
}

export function getApp(): Promise<App> {
  processHolder.context ??= build().catch((error) => {
    processHolder.context = undefined;
    throw error;
  });
  return processHolder.context;
}
