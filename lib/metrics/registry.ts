import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { processSingleton } from "../process-global";

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const FAST = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
type Registers = Registry[];

/** What the platforms send and what is sent to them. */
function platformMetrics(registers: Registers) {
  return {
    webhookRequests: new Counter({
      name: "switchboard_webhook_requests_total",
      help: "Webhook requests by channel and HTTP status",
      labelNames: ["channel", "status"] as const,
      registers,
    }),
    webhookDuration: new Histogram({
      name: "switchboard_webhook_request_duration_seconds",
      help: "Time to answer a webhook request (verification, parsing and the ingest transaction)",
      labelNames: ["channel"] as const,
      buckets: FAST,
      registers,
    }),
    updatesIngested: new Counter({
      name: "switchboard_updates_ingested_total",
      help: "Platform updates stored, by channel and result (stored, duplicate, edited, membership, deleted, topic)",
      labelNames: ["channel", "result"] as const,
      registers,
    }),
    updatesIgnored: new Counter({
      name: "switchboard_updates_ignored_total",
      help: "Platform updates acknowledged and ignored, by channel and reason",
      labelNames: ["channel", "reason"] as const,
      registers,
    }),
    sends: new Counter({
      name: "switchboard_sends_total",
      help: "Messages sent to a platform, by channel and outcome (sent, not_sent, unknown)",
      labelNames: ["channel", "outcome"] as const,
      registers,
    }),
    mediaDownloads: new Counter({
      name: "switchboard_media_downloads_total",
      help: "Media download attempts by source (telegram, line, url) and outcome (stored, too_large, failed, unsupported, retry)",
      labelNames: ["source", "outcome"] as const,
      registers,
    }),
    mediaDownloadDuration: new Histogram({
      name: "switchboard_media_download_duration_seconds",
      help: "One media download attempt, claim to recorded outcome (download, inspection, storage), by source",
      labelNames: ["source"] as const,
      buckets: SECONDS,
      registers,
    }),
  };
}

/** Agent turns and their model calls. */
function turnMetrics(registers: Registers) {
  return {
    turns: new Counter({
      name: "switchboard_turns_total",
      help: "Agent turns by outcome (answered, possibly_answered, not_answered, silent, skipped, failed, rate_limited)",
      labelNames: ["outcome"] as const,
      registers,
    }),
    turnDuration: new Histogram({
      name: "switchboard_turn_duration_seconds",
      help: "Time one claimed turn took, context to the last envelope finished",
      buckets: SECONDS,
      registers,
    }),
    modelCallDuration: new Histogram({
      name: "switchboard_model_call_duration_seconds",
      help: "One model call (one step of a turn), by provider, model and result (ok, error, rate_limited)",
      labelNames: ["provider", "model", "result"] as const,
      buckets: SECONDS,
      registers,
    }),
    modelTokens: new Counter({
      name: "switchboard_model_tokens_total",
      help: "Tokens the provider reported, by provider, model and type (input, cached_input, output); cached_input is part of input",
      labelNames: ["provider", "model", "type"] as const,
      registers,
    }),
    draftsShed: new Counter({
      name: "switchboard_drafts_shed_total",
      help: "Answers sent without a draft (sendMessageDraft) because this instance was busy: many turns running, event loop saturated",
      registers,
    }),
    modelRateLimited: new Counter({
      name: "switchboard_model_rate_limited_total",
      help: "Model calls the provider answered with a rate limit (429, or 503/529 with Retry-After)",
      labelNames: ["provider", "model"] as const,
      registers,
    }),
    takeovers: new Counter({
      name: "switchboard_worker_takeovers_total",
      help: "Envelopes this instance's worker took over after their holder's lease ran out (an instance died or stalled mid-turn)",
      registers,
    }),
  };
}

/** The queue and the console, read when /metrics is scraped. */
function queueMetrics(registers: Registers) {
  return {
    queueTurns: new Gauge({
      name: "switchboard_queue_turns",
      help: "Turns due and waiting (all instances: read from the database)",
      registers,
    }),
    queueEnvelopes: new Gauge({ name: "switchboard_queue_envelopes", help: "Envelopes due and waiting (all instances)", registers }),
    queueOldestWait: new Gauge({
      name: "switchboard_queue_oldest_wait_seconds",
      help: "How long the oldest due envelope has waited (0 when none waits)",
      registers,
    }),
    turnsRunning: new Gauge({ name: "switchboard_turns_running", help: "Turns running now (all instances)", registers }),
    handoffsWaiting: new Gauge({ name: "switchboard_handoffs_waiting", help: "Conversations waiting for a human operator", registers }),
    liveEventClients: new Gauge({
      name: "switchboard_live_event_clients",
      help: "Dashboard pages connected to this instance's live event stream",
      registers,
    }),
  };
}

/** The database: statements, their time and the wait for a connection. */
function databaseMetrics(registers: Registers) {
  return {
    dbStatementDuration: new Histogram({
      name: "switchboard_db_statement_duration_seconds",
      help: "Hand-written SQL on the message path: one read, one write, or one transaction's work",
      labelNames: ["dialect", "kind"] as const,
      buckets: FAST,
      registers,
    }),
    dbStatements: new Counter({
      name: "switchboard_db_statements_total",
      help: "Statements sent to the database: the hand-written path (sql) and Prisma's queries (prisma), BEGIN and COMMIT not counted",
      labelNames: ["dialect", "path"] as const,
      registers,
    }),
    dbPoolWait: new Histogram({
      name: "switchboard_db_pool_wait_seconds",
      help: "Time a transaction waited for its connection (PostgreSQL pool, SQLite group commit and lock)",
      labelNames: ["dialect"] as const,
      buckets: FAST,
      registers,
    }),
  };
}

/**
 * This process's Prometheus metrics (each instance serves its own). Labels are
 * bounded on purpose: channel and adapter names, outcomes from fixed lists, the
 * configured provider and model (any other model a replay names: "other",
 * lib/metrics/model-label.ts); never a chat id, a user or any text.
 */
function createMetrics() {
  const registry = new Registry();
  const registers = [registry];
  const metrics = {
    registry,
    ...platformMetrics(registers),
    ...turnMetrics(registers),
    ...queueMetrics(registers),
    ...databaseMetrics(registers),
  };
  collectDefaultMetrics({ register: registry });
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;

// One per process: Next bundles lib/ once for the instrumentation and again per route,
// and the webhook, the worker and /metrics must share one set of counters.
function state() {
  return processSingleton("metrics", () => ({ metrics: createMetrics(), enabled: true }));
}

/** The metrics, or null when they are off (METRICS_ENABLED=false): callers record nothing. */
export function metrics(): Metrics | null {
  const s = state();
  return s.enabled ? s.metrics : null;
}

/** Turns recording on or off for this process (the server reads METRICS_ENABLED once). */
export function setMetricsEnabled(enabled: boolean) {
  state().enabled = enabled;
}
