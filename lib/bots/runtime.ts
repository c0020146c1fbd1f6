import { createHash } from "node:crypto";
import type { UserFromGetMe } from "grammy/types";
import { limitModel, ProviderGate } from "../agent/call-limits";
import { modelFromEnv, type ModelHandle, sameModelEndpoint } from "../agent/model";
import { createLineChannel, type LineHosts } from "../channels/line/adapter";
import { createTelegramChannel } from "../channels/telegram/adapter";
import type { ChannelAdapter } from "../channels/types";
import type { WebhookSource } from "../channels/webhook-source";
import { listBots, type BotRow } from "../db/bots";
import type { Database } from "../db/database";
import type { BotAgentRow } from "../db/settings-cache";
import { log } from "../log";
import { botAgentOf } from "../settings/bot-agent";
import type { SecretBox } from "./secret-box";

export type BotRuntimeDeps = {
  db: Database;
  box: SecretBox | null;
  telegramApiRoot?: string;
  /** LINE's hosts, as the environment's LINE channel has them. */
  lineHosts: LineHosts;
  /** The adapters every pipeline step looks up by a conversation's channel: bots' adapters are added here. */
  channels: Record<string, ChannelAdapter>;
  /** Metrics and traces around an adapter (as the environment's bots get). */
  observe: <C extends ChannelAdapter>(adapter: C) => C;
  /** Wraps a bot's own model like the deployment's (metrics, the provider's gate). */
  model: {
    timeoutMs: number;
    ceiling: () => number;
    instrument: (handle: ModelHandle) => ModelHandle;
    /** The deployment's model settings (LLM_PROVIDER, LLM_BASE_URL, LLM_API_KEY): whose key goes where. */
    deployment?: { provider?: string; baseUrl?: string; apiKey?: string };
  };
};

type Entry = { version: string; adapter: ChannelAdapter; source: WebhookSource };

/** Credentials as sealed in the row: { token } or { channelSecret, channelAccessToken }. */
type Credentials = { token?: string; channelSecret?: string; channelAccessToken?: string };

/**
 * The bots added as records, running in this process: one channel adapter and what
 * its webhook checks deliveries against (lib/inbound/receive-webhook.ts) per active bot, built from its row (credentials unsealed here
 * only), rebuilt when the row changes, dropped when it is disabled or removed.
 * Every instance syncs from the database on its own (on demand and every few
 * seconds), so a bot added on one instance answers on all.
 */
export class BotRuntime {
  private readonly entries = new Map<number, Entry>();
  private readonly gates = new Map<string, { gate: ProviderGate; handle: ModelHandle }>();
  private lastSync = 0;
  private syncing: Promise<void> | null = null;

  constructor(private readonly deps: BotRuntimeDeps) {}

  /** Reads the bots and brings adapters and webhooks in line with them. */
  sync(): Promise<void> {
    this.syncing ??= this.load().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  /** A sync at most every `everyMs` (the worker's tick; a webhook for an unknown bot). */
  async syncAtMost(everyMs: number) {
    if (Date.now() - this.lastSync < everyMs) return;
    await this.sync();
  }

  private async load() {
    this.lastSync = Date.now();
    const rows = (await listBots(this.deps.db)).filter((row) => row.source === "api");
    const live = new Set<number>();
    for (const row of rows) {
      if (row.status !== "active" || !row.credentials) continue;
      live.add(row.id);
      const version = `${row.updatedAt.getTime()}`;
      if (this.entries.get(row.id)?.version === version) continue;
      try {
        const entry = this.build(row, version);
        this.entries.set(row.id, entry);
        this.deps.channels[row.adapter] = entry.adapter;
      } catch (error) {
        // One bot's bad row (a key that changed) must not stop the others.
        log.error("bots.start_failed", { botId: row.id, error: (error as Error).message });
      }
    }
    for (const [id, entry] of this.entries) {
      if (live.has(id)) continue;
      this.entries.delete(id);
      delete this.deps.channels[entry.adapter.name];
    }
  }

  private build(row: BotRow, version: string): Entry {
    if (!this.deps.box) throw new Error("no secret key: set SWITCHBOARD_SECRET_KEY");
    const credentials = JSON.parse(this.deps.box.open(row.credentials!)) as Credentials;
    if (row.platform === "telegram") {
      const adapter = this.deps.observe(
        createTelegramChannel({
          name: row.adapter,
          token: credentials.token!,
          apiRoot: this.deps.telegramApiRoot,
          sandboxUsername: row.username ?? "bot",
          botInfo: botInfoOf(row),
        }),
      );
      const telegram = { secret: this.deps.box.open(row.webhookSecret!), channel: adapter };
      return { version, adapter, source: { platform: "telegram", adapter: row.adapter, telegram } };
    }
    const adapter = this.deps.observe(
      createLineChannel({ ...this.deps.lineHosts, name: row.adapter, accessToken: credentials.channelAccessToken! }),
    );
    return { version, adapter, source: { platform: "line", adapter: row.adapter, line: { channelSecret: credentials.channelSecret! } } };
  }

  /** What an active bot of this platform's webhook checks, or null (unknown, disabled, removed: 404). */
  async sourceFor(platform: string, botId: number): Promise<WebhookSource | null> {
    if (!this.entries.has(botId)) await this.syncAtMost(1000);
    const entry = this.entries.get(botId);
    return entry?.source.platform === platform ? entry.source : null;
  }

  /**
   * The model a bot's conversations are answered with: its own (through a gate
   * per provider, model and endpoint, shared by every bot using the same), or
   * undefined to use the deployment's. The row is the one the caller read with
   * the settings in force (lib/settings/reader.ts): nothing is read here.
   */
  modelFor(row: BotAgentRow): ModelHandle | undefined {
    const config = botAgentOf(row).model;
    if (!config) return undefined;
    const own = row.modelApiKey && this.deps.box ? this.deps.box.open(row.modelApiKey) : undefined;
    // Without a key of its own, a bot uses the deployment's only at the deployment's endpoint, and
    // the provider's own variable (OPENAI_API_KEY…) only at the provider's own address: never at one an admin typed in.
    const deployment = this.deps.model.deployment ?? {};
    const sameEndpoint = sameModelEndpoint(config, deployment);
    const apiKey = own ?? (sameEndpoint ? deployment.apiKey : undefined);
    const key = [config.provider, config.model, config.baseUrl ?? "", apiKey ? createHash("sha256").update(apiKey).digest("hex") : ""].join(
      "|",
    );
    let known = this.gates.get(key);
    if (!known) {
      const handle = modelFromEnv(
        { LLM_PROVIDER: config.provider, LLM_MODEL: config.model, LLM_BASE_URL: config.baseUrl, LLM_API_KEY: apiKey },
        { processEnvKey: !config.baseUrl || sameEndpoint },
      );
      if (!handle) return undefined;
      const gate = new ProviderGate(handle.provider, this.deps.model.ceiling(), Date.now, handle.modelId, this.deps.model.timeoutMs);
      known = { gate, handle: limitModel(this.deps.model.instrument(handle), gate) };
      this.gates.set(key, known);
    }
    return known.handle;
  }

  /** The gates of bots' own models, to apply the operator's ceiling. */
  setCeiling(ceiling: number) {
    for (const { gate } of this.gates.values()) gate.setCeiling(ceiling);
  }
}

/** getMe's answer rebuilt from the row, so a bot answers webhooks without asking Telegram again at start. */
function botInfoOf(row: BotRow): UserFromGetMe | undefined {
  if (!row.platformBotId || !row.username) return undefined;
  return {
    id: Number(row.platformBotId),
    is_bot: true,
    first_name: row.name,
    username: row.username,
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
    can_connect_to_business: false,
    has_main_web_app: false,
  } as UserFromGetMe;
}
