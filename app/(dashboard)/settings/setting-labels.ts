import type { Settings } from "../_lib/types";

/** What the settings page calls each setting, for the change log (never the internal key). */
export const SETTING_LABELS: Record<keyof Settings, string> = {
  recencyWindow: "Recency window (messages)",
  replyContextWindow: "Reply context window",
  replyChainDepth: "Reply chain depth",
  gapThresholdMinutes: "Gap threshold (minutes)",
  quoteMaxChars: "Quote length (characters)",
  forkReplyTtlDays: "Fork reply TTL (days)",
  forkPendingUpdates: "Fork pending updates (messages)",
  forkIdleMinutes: "Fork idle timeout (minutes)",
  groupAnswerMode: "In groups, the agent answers",
  answerChatSenders: "Messages a chat sends",
  agentName: "Agent name",
  agentInstructions: "Agent instructions",
  turnConcurrency: "Conversations answered at once",
  modelConcurrency: "Model calls at once",
  burstDebounceMs: "Burst quiet time (ms)",
  agentBindings: "Channels each agent may send to",
  handoffCommand: "Handoff command",
  handoffWaitingMessage: "Message when handed off",
  handoffTimeoutMinutes: "Wait before telling the user nobody came (minutes)",
  handoffTimeoutMessage: "Message after that wait",
  handoffGuidance: "When the agent should hand off",
  typingIndicator: "Show the bot working while it thinks",
  streamDrafts: "Show the answer as it is written (drafts)",
  handoffsPerUserPerHour: "Handoffs one user may start per hour",
  handoffTelegramChatId: "Operators' Telegram chat id",
  modelPrices: "Model prices",
  modelSeesImages: "The model sees pictures",
  maxImagesPerTurn: "Images per turn",
  mediaRetentionDays: "Keep files (days)",
  replaysPerAgentPerDay: "Replays per agent per day",
};

/**
 * A changed value as people read it: on/off, "server default" (for a bot's own setting,
 * "inherited": null there means the global value), a price table by its size.
 */
export function settingValueText(key: string, value: unknown, ofBot = false): string {
  if (value === null || value === undefined) return ofBot ? "inherited" : "server default";
  if (typeof value === "boolean") return value ? "on" : "off";
  if (key === "model" && typeof value === "object") {
    const m = value as { provider: string; model: string; baseUrl?: string; apiKey: string };
    return `${m.provider} · ${m.model}${m.baseUrl ? ` at ${m.baseUrl}` : ""} (API key: ${m.apiKey})`;
  }
  if (key === "modelPrices" && Array.isArray(value)) return `${value.length} row${value.length === 1 ? "" : "s"}`;
  if (typeof value === "string") return `“${value.length > 80 ? `${value.slice(0, 80)}…` : value}”`;
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** The change log's label for a key (a key the console does not know yet reads as written; a bot's model is not a setting). */
export const settingLabel = (key: string) => (key === "model" ? "Model" : (SETTING_LABELS[key as keyof Settings] ?? key));
