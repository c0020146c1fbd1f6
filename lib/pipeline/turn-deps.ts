import type { ModelHandle } from "../agent/model";
import type { Transcriber } from "../agent/transcription";
import type { ChannelAdapter } from "../channels/types";
import type { Database } from "../db/database";
import type { BotAgentRow } from "../db/settings-cache";
import type { SettingsInForce } from "../settings/reader";

/** A request to hand a conversation to a human (lib/pipeline/handoff.ts). */
export type HandoffRequest = {
  conversationId: number;
  reason: string;
  /** Who asks: `agent:<name>` (tool or command) or `operator:<name>`. */
  by: string;
  /** The user's message it answers (the waiting message replies to it natively). */
  replyTo?: {
    envelopeId: number;
    message: { id: number; threadId: number | null; platformMessageId: string | null; platformTopicId?: string | null } | null;
  } | null;
  /** The settings in force for the conversation's bot as the asker read them (its message or turn); absent: read here. */
  settings?: SettingsInForce;
};

/** What the pipeline's steps need: database, channels, model, model timeout. */
export type TurnDeps = {
  db: Database;
  channels: Record<string, ChannelAdapter>;
  /** Null: no model configured; the message waits for an operator. */
  model: ModelHandle | null;
  /** How long one model call may take. */
  timeoutMs: number;
  /**
   * The running turn's lease (lib/pipeline/worker.ts): aborted once another worker
   * holds its envelopes. The model call stops and nothing more is sent or recorded.
   */
  lease?: AbortSignal;
  /** Speech to text for voice notes (TRANSCRIPTION_MODEL); null or absent: none. */
  transcriber?: Transcriber | null;
  /** True while the instance is too busy for answer drafts (lib/pipeline/answer-draft.ts `shedDrafts`); absent: never. */
  draftsShed?: () => boolean;
  /** A bot's own model, from its row as the turn read it with the settings; undefined (or absent) = `model`. */
  modelFor?: (bot: BotAgentRow) => ModelHandle | undefined;
  /**
   * Hands the conversation to a human (the `handoff` tool calls it). Passed in by
   * the wiring rather than imported: a handoff reports an open fork, and that
   * report runs a model turn, so the turn cannot import the handoff.
   */
  requestHandoff: (deps: TurnDeps, request: HandoffRequest) => Promise<unknown>;
};

/** One entry of a turn's record of tool calls (the prompt inspector shows them). */
export type ToolCallRecord =
  | { message: string; outcome: { status: string } | { error: string }; drafts?: number }
  | { tool: "handoff"; message: string; outcome: { status: string } | { error: string } };

/** What a turn's tools are given: the turn they act for, and its record of calls. */
export type TurnToolContext = {
  deps: TurnDeps;
  /** The turn's envelope (a burst's latest): the reply's dedupe key and the handoff's thread hang on it. */
  envelope: { id: number; to: string };
  conversationId: number;
  /** The settings the turn runs with (read once when it started). */
  settings?: SettingsInForce;
  /** Each call and what came of it, in order. */
  calls: ToolCallRecord[];
  /** Runs before anything goes to the chat (the reply, a handoff's waiting message): stops the typing indicator and the draft. */
  beforeSend?: () => Promise<void>;
  /** Draft updates the user saw of the reply while the model wrote it (recorded with the call). */
  draftsShown?: () => number;
};
