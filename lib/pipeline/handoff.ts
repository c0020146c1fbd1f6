import type { BotScope } from "../db/conversation-scope";
import { z } from "zod";
import type { Database } from "../db/database";
import { findOperatorByName } from "../db/operators";
import {
  countUserHandoffs,
  findOverdueHandoffs,
  HANDOFF_REQUEST_TEXT,
  listHandoffs,
  markHandoffTimedOut,
  readHandoff,
  senderOfEnvelope,
  writeTransition,
  type HandoffRow,
} from "../db/handoff";
import { agentAddress, operatorAddress } from "../envelope/address";
import { AppError, notFound } from "../errors";
import { log } from "../log";
import { sanitizeInline } from "../context/sanitize";
import { settingsFor } from "../settings/reader";
import type { Settings } from "../settings/schema";
import { exitFork } from "./forks";
import {
  allowedFrom,
  handoffActions,
  parseHandoffState,
  stateAfter,
  transitionRefusal,
  type HandoffAction,
  type HandoffState,
} from "./handoff-rules";
import type { HandoffRequest, TurnDeps } from "./turn-deps";
import { sendToChat } from "./send-to-chat";

/**
 * Human handoff, the orchestration: request (the agent's `handoff` tool, the
 * user's command, or an operator), take, release, and the wait timeout. The state
 * lives on the Conversation (lib/db/handoff.ts); every transition is also an
 * envelope in the conversation's history, from `agent:<name>` or
 * `operator:<name>`, so the audit trail is the envelope log like everything else.
 */

/** Where an agent's handoff request is addressed: whichever operator is on duty. */
export const ON_CALL = operatorAddress("on-call");

export const handoffBodySchema = z
  .object({
    action: z.enum(handoffActions),
    reason: z.string().trim().min(1).max(500).optional(),
  })
  .strict();

/** The API's view of a conversation's handoff: null while the agent has it. */
export type HandoffView = {
  state: HandoffState;
  reason: string | null;
  since: Date | null;
  operator: string | null;
  assignedAt: Date | null;
  timedOutAt: Date | null;
};

export function handoffView(
  c: Pick<
    HandoffRow,
    "handoffState" | "handoffReason" | "handoffRequestedAt" | "handoffOperator" | "handoffAssignedAt" | "handoffTimedOutAt"
  >,
): HandoffView | null {
  const state = parseHandoffState(c.handoffState);
  if (!state) return null;
  return {
    state,
    reason: c.handoffReason,
    since: c.handoffRequestedAt,
    operator: c.handoffOperator,
    assignedAt: c.handoffAssignedAt,
    timedOutAt: c.handoffTimedOutAt,
  };
}

/**
 * Hands the conversation to a human: an interactive fork in progress is reported
 * first (its summary joins the main session, where the operator reads it), the
 * state moves bot → waiting (409 if it is not the bot's), the user gets the
 * waiting message and the operators' Telegram chat, when set, is told.
 */
export async function requestHandoff(deps: TurnDeps, input: HandoffRequest): Promise<{ envelopeId: number; view: HandoffView }> {
  // The agent asks on a user's behalf (their command, or the tool in answer to them): that user's
  // handoffs across conversations are limited, counted and started one at a time per user here.
  const user = input.by.startsWith("agent:") && input.replyTo ? await senderOfEnvelope(deps.db, input.replyTo.envelopeId) : null;
  if (!user) return handOff(deps, input);
  return oneAtATime(`${user.channel}:${user.senderPlatformId}`, async () => {
    // The global limit (a bot's override of it does not apply), from the asker's read when it passed one.
    const { handoffsPerUserPerHour: limit } = input.settings?.global ?? (await settingsFor(deps.db));
    const recent = await countUserHandoffs(deps.db, user, new Date(Date.now() - 3_600_000));
    if (recent >= limit) {
      throw new AppError(
        "rate_limited",
        `this user started ${recent} handoffs within the hour, the most allowed (setting handoffsPerUserPerHour); an operator sees their messages in the conversations`,
      );
    }
    return handOff(deps, input);
  });
}

const userQueues = new Map<string, Promise<unknown>>();

/** Runs `fn` after every earlier call with the same key has ended (in this process). */
function oneAtATime<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = userQueues.get(key) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const settled = run.catch(() => {});
  userQueues.set(key, settled);
  void settled.then(() => {
    if (userQueues.get(key) === settled) userQueues.delete(key);
  });
  return run;
}

async function handOff(deps: TurnDeps, input: HandoffRequest): Promise<{ envelopeId: number; view: HandoffView }> {
  const { db } = deps;
  const current = await readHandoff(db, input.conversationId);
  if (!current) throw notFound("conversation");
  // The conversation's bot may have its own agent name and waiting message.
  const settings = input.settings?.settings ?? (await settingsFor(db, { adapter: current.channel }));
  const refusal = transitionRefusal(parseHandoffState(current.handoffState), "request");
  if (refusal) throw new AppError("conflict", refusal);
  if (current.activeForkId !== null) {
    try {
      await exitFork(deps, current.activeForkId, "report", "handoff");
    } catch (error) {
      // Another exit won meanwhile: the conversation is back on its main session either way.
      log.warn("handoff.fork_report_failed", { conversationId: input.conversationId, error });
    }
  }
  const at = new Date();
  const fromAgent = input.by.startsWith("agent:");
  const written = await writeTransition(db, {
    conversationId: input.conversationId,
    action: "request",
    from: allowedFrom.request,
    to: stateAfter.request,
    at,
    reason: input.reason,
    envelope: {
      from: input.by,
      to: fromAgent ? ON_CALL : agentAddress(settings.agentName),
      text: `${HANDOFF_REQUEST_TEXT}${input.reason}`,
      replyToEnvelopeId: input.replyTo?.envelopeId ?? null,
      metadata: { handoff: { action: "request", state: "waiting", reason: input.reason } },
    },
  });
  if (!written) throw new AppError("conflict", "the conversation's handoff state changed meanwhile; reload and try again");
  log.info("handoff.requested", { conversationId: input.conversationId, by: input.by });
  if (settings.handoffWaitingMessage.trim()) {
    await sendToChat(deps, {
      from: agentAddress(settings.agentName),
      senderKind: "agent",
      senderName: settings.agentName,
      conversation: current,
      text: settings.handoffWaitingMessage,
      automatic: true,
      replyTo: input.replyTo?.message ?? null,
      replyToEnvelopeId: written.envelopeId,
      forkId: null,
      dedupeKey: `handoff-waiting:${written.envelopeId}`,
    });
  }
  await tellOperatorsChat(deps, settings.handoffTelegramChatId, current, input.reason);
  return {
    envelopeId: written.envelopeId,
    view: { state: "waiting", reason: input.reason, since: at, operator: null, assignedAt: null, timedOutAt: null },
  };
}

const REMIND_AFTER_MS = 60_000;

/**
 * The user asked for a person again while one is awaited: say once more that
 * one is coming, once per handoff however often they ask, and not within a
 * minute of the first (that answer is still on screen). Once an operator has
 * the conversation, nothing: the operator sees the message and answers.
 */
export async function remindWaiting(
  deps: TurnDeps,
  conversationId: number,
  replyTo: HandoffRequest["replyTo"],
  /** The settings in force for the conversation's bot, as the user's message read them. */
  settings: Settings,
  now = new Date(),
) {
  const current = await readHandoff(deps.db, conversationId);
  if (!current) return;
  if (current.handoffState !== "waiting" || !current.handoffRequestedAt || !settings.handoffWaitingMessage.trim()) return;
  if (now.getTime() - current.handoffRequestedAt.getTime() < REMIND_AFTER_MS) return;
  await sendToChat(deps, {
    from: agentAddress(settings.agentName),
    senderKind: "agent",
    senderName: settings.agentName,
    conversation: current,
    text: settings.handoffWaitingMessage,
    automatic: true,
    replyTo: replyTo?.message ?? null,
    replyToEnvelopeId: replyTo?.envelopeId ?? null,
    forkId: null,
    dedupeKey: `handoff-reminder:${conversationId}:${current.handoffRequestedAt.getTime()}`,
  });
}

/** Optional: a line in the operators' Telegram chat. Best effort: a failure is logged, the handoff stands. */
async function tellOperatorsChat(deps: TurnDeps, chatId: string | null, conversation: HandoffRow, reason: string) {
  const telegram = deps.channels.telegram;
  if (!chatId || !telegram) return;
  try {
    await telegram.send({ chatId, ...operatorsNotice(conversation, reason) });
  } catch (error) {
    log.warn("handoff.operators_chat_failed", { conversationId: conversation.id, error: (error as Error).message });
  }
}

/**
 * The operators' notice. The chat's title and the reason are written by users (or
 * by the model from what a user wrote): each goes on a labelled line of its own, in
 * quotes, one line, as a verbatim range the channel shows as code, where neither a
 * link nor a command can be clicked and nothing reads as our own words.
 */
export function operatorsNotice(conversation: Pick<HandoffRow, "id" | "channel" | "platformChatId" | "title">, reason: string) {
  let text = `Needs a human: conversation #${conversation.id} (${conversation.channel} chat ${conversation.platformChatId}).`;
  const verbatim: { offset: number; length: number }[] = [];
  const quoted = (label: string, value: string) => {
    const clean = oneLineQuote(value);
    if (!clean) return;
    text += `\n${label}: `;
    verbatim.push({ offset: text.length, length: clean.length });
    text += clean;
  };
  if (conversation.title) quoted("Chat title, as set in the chat", conversation.title);
  quoted("Reason, quoted as written", reason);
  return { text, verbatim };
}

/** User text for one quoted line: no line breaks or invisible characters, at most 300 characters. */
function oneLineQuote(value: string) {
  const line = sanitizeInline(value, 300);
  return line ? `"${line}"` : "";
}

/**
 * An operator moves the handoff: request (hand off from the dashboard), take
 * (waiting → assigned: of two operators or instances exactly one wins, the other
 * gets 409), release (back to the agent; the next turn carries a note that a
 * human handled it).
 */
export async function changeHandoff(
  deps: TurnDeps,
  conversationId: number,
  body: z.infer<typeof handoffBodySchema>,
  operator: { name: string; displayName?: string | null },
) {
  if (body.action === "request") {
    // The reason is read in the console: the operator as it names them (their display name where set).
    const reason = body.reason ?? `requested by ${operator.displayName ?? operator.name}`;
    return (await requestHandoff(deps, { conversationId, reason, by: operatorAddress(operator.name) })).view;
  }
  return moveHandoff(deps.db, conversationId, body.action, operator.name);
}

/** An operator takes a waiting handoff (409 when it is not waiting): also done by replying to a waiting user. */
export const takeHandoff = (db: Database, conversationId: number, operator: string) => moveHandoff(db, conversationId, "take", operator);

async function moveHandoff(
  db: Database,
  conversationId: number,
  action: Exclude<HandoffAction, "request">,
  operator: string,
): Promise<HandoffView | null> {
  const current = await readHandoff(db, conversationId);
  if (!current) throw notFound("conversation");
  const refusal = transitionRefusal(parseHandoffState(current.handoffState), action);
  if (refusal) throw new AppError("conflict", refusal);
  const { agentName } = await settingsFor(db, { adapter: current.channel });
  const at = new Date();
  // Taking a handoff is taking the conversation: its taker becomes the assignee (recorded on the same envelope).
  const assigneeId = action === "take" ? ((await findOperatorByName(db, operator))?.id ?? null) : null;
  const written = await writeTransition(db, {
    conversationId,
    action,
    from: allowedFrom[action],
    to: stateAfter[action],
    at,
    operator,
    assigneeId,
    envelope: {
      from: operatorAddress(operator),
      to: agentAddress(agentName),
      text: action === "take" ? `taken over by ${operator}` : `handed back to the agent by ${operator}`,
      metadata: {
        handoff: { action, state: stateAfter[action], operator },
        ...(assigneeId !== null ? { inbox: { action: "assign", assigneeId, by: operator } } : {}),
      },
    },
  });
  if (!written) {
    const now = await readHandoff(db, conversationId);
    throw new AppError(
      "conflict",
      transitionRefusal(parseHandoffState(now?.handoffState), action) ?? "the handoff changed meanwhile; try again",
    );
  }
  log.info(action === "take" ? "handoff.taken" : "handoff.released", { conversationId, operator });
  const after = await readHandoff(db, conversationId);
  return after ? handoffView(after) : null;
}

/** The inbox: handoffs waiting (longest first) and those an operator has. */
export async function listOpenHandoffs(db: Database, bots?: BotScope) {
  const rows = await listHandoffs(db, 200, bots);
  return rows.map((row) => ({
    conversationId: row.id,
    channel: row.channel,
    platformChatId: row.platformChatId,
    title: row.title,
    ...handoffView(row)!,
  }));
}

/**
 * Handoffs nobody took within the setting's time: the user is told once (the
 * timeout message), and the conversation stays waiting in the inbox — it never
 * goes back to the bot by itself. Run by the worker's housekeeping tick.
 */
export async function handoffTimeouts(deps: TurnDeps, now = new Date()) {
  const settings = await settingsFor(deps.db);
  const overdue = await findOverdueHandoffs(deps.db, new Date(now.getTime() - settings.handoffTimeoutMinutes * 60_000));
  for (const row of overdue) {
    if (!(await markHandoffTimedOut(deps.db, row.id, row.handoffRequestedAt!, now))) continue;
    log.info("handoff.timed_out", { conversationId: row.id });
    if (!settings.handoffTimeoutMessage.trim()) continue;
    await sendToChat(deps, {
      from: agentAddress(settings.agentName),
      senderKind: "agent",
      senderName: settings.agentName,
      conversation: row,
      text: settings.handoffTimeoutMessage,
      automatic: true,
      replyTo: null,
      replyToEnvelopeId: null,
      forkId: null,
      dedupeKey: `handoff-timeout:${row.id}:${row.handoffRequestedAt!.getTime()}`,
    });
  }
}
