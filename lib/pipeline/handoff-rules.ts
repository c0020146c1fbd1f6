/**
 * The pure rules of human handoff: which message is the handoff command, which
 * transitions are allowed, and whether the agent stays silent. No I/O, so the
 * state machine is tested on its own (tests/unit/handoff-rules.test.ts).
 *
 *   bot (null) --request--> waiting --take--> assigned --release--> bot
 *                                   \-------------release---------/
 */
export type HandoffState = "waiting" | "assigned";
export type HandoffAction = "request" | "take" | "release";
export const handoffActions = ["request", "take", "release"] as const;

/** The states an action may start from: the conditional UPDATE's WHERE. */
export const allowedFrom: Record<HandoffAction, (HandoffState | null)[]> = {
  request: [null],
  take: ["waiting"],
  release: ["waiting", "assigned"],
};

export const stateAfter: Record<HandoffAction, HandoffState | null> = { request: "waiting", take: "assigned", release: null };

/** Why an action cannot run in a state (the 409's message), or null when it can. */
export function transitionRefusal(current: HandoffState | null, action: HandoffAction): string | null {
  if (allowedFrom[action].includes(current)) return null;
  if (action === "request")
    return current === "waiting" ? "a handoff is already waiting for an operator" : "an operator already has this conversation";
  if (action === "take")
    return current === "assigned" ? "another operator already took this conversation" : "nothing to take: no handoff is waiting here";
  return "the agent already has this conversation: nothing to hand back";
}

/** A stored state read back (anything unknown reads as the bot's: never stuck silent on a bad value). */
export function parseHandoffState(value: string | null | undefined): HandoffState | null {
  return value === "waiting" || value === "assigned" ? value : null;
}

/** While a human is called or has the conversation, the agent answers nothing. */
export function agentStaysSilent(state: string | null | undefined): boolean {
  return parseHandoffState(state) !== null;
}

/**
 * The handoff command in a user's message: the whole message is the command
 * (`/human`), optionally addressed to a bot (`/human@SomeBot`, as Telegram groups
 * send it) and followed by the user's own reason. Null when it is not the command.
 */
export function parseHandoffCommand(text: string, command: string): { reason: string | null; addressee: string | null } | null {
  const trimmed = text.trim();
  const lower = trimmed.toLowerCase();
  if (!lower.startsWith(command.toLowerCase())) return null;
  let rest = trimmed.slice(command.length);
  const addressed = /^@([A-Za-z0-9_]{1,64})/.exec(rest);
  if (addressed) rest = rest.slice(addressed[0].length);
  if (rest !== "" && !/^\s/.test(rest)) return null;
  const reason = rest.trim();
  return { reason: reason ? reason.slice(0, 500) : null, addressee: addressed ? addressed[1] : null };
}

/** The reason recorded when the user asked with the command and gave none. */
export const COMMAND_REASON = "the user asked for a human";

/** The most a handoff's reason holds (the tool's and the API's limit, the command's too). */
export const MAX_REASON = 500;

/**
 * The handoff command in an inbound message, as the recorded reason, or null when
 * the message is not a person asking this bot for a human: an edit (of an old
 * message) is not a new request, nor a file's caption; a bot, a channel's post or its automatic forward
 * into the discussion group, and a forwarded text are nobody waiting here; and
 * `/human@OtherBot` in a group is for the other bot (the platform's addressesBot
 * says whether an addressed command is ours). An anonymous admin is a person.
 */
export function handoffCommandIn(
  message: {
    kind: "new" | "edit";
    text: string;
    forwarded: boolean;
    caption?: boolean;
    sender: { isBot: boolean; role?: string };
    addressesBot: boolean;
  },
  command: string,
): string | null {
  if (message.kind !== "new" || message.forwarded || message.caption || message.sender.isBot) return null;
  if (message.sender.role === "channel" || message.sender.role === "automatic_forward") return null;
  const parsed = parseHandoffCommand(message.text, command);
  if (!parsed || (parsed.addressee !== null && !message.addressesBot)) return null;
  // The prefix counts too: the stored reason keeps the same limit as the tool's and the API's.
  return (parsed.reason ? `${COMMAND_REASON}: ${parsed.reason}` : COMMAND_REASON).slice(0, MAX_REASON);
}
