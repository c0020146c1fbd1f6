import { AppError } from "../errors";

/**
 * Envelope addresses, in one place:
 *   agent:<name>                 an agent (lowercase name)
 *   channel:<adapter>:<chat-id>  a chat on a platform (the chat id may contain ':')
 *   operator:<name>              a person using the dashboard
 */
export type Address =
  | { kind: "agent"; name: string }
  | { kind: "channel"; adapter: string; chatId: string }
  | { kind: "operator"; name: string };

const NAME = /^[a-z0-9_-]{1,32}$/;
/** Names every JavaScript object answers to: as an agent's name they would read the object's own machinery. */
const RESERVED_AGENT_NAMES = new Set(["constructor", "__proto__", "prototype"]);

/** Why `name` cannot be an agent's name, or null when it can. */
export function agentNameProblem(name: string): string | null {
  if (!NAME.test(name)) return "lowercase letters, digits, _ and - (1–32)";
  if (RESERVED_AGENT_NAMES.has(name)) return `"${name}" is reserved; choose another name`;
  return null;
}
const OPERATOR = /^[A-Za-z0-9_.-]{1,64}$/;
const ADAPTER = /^[a-z][a-z0-9_-]{0,31}$/;

export function parseAddress(text: string): Address {
  const [kind, ...rest] = text.split(":");
  if (kind === "agent" && rest.length === 1 && NAME.test(rest[0])) {
    const problem = agentNameProblem(rest[0]);
    if (problem) throw new AppError("bad_request", `invalid address "${text}": ${problem}`);
    return { kind, name: rest[0] };
  }
  if (kind === "operator" && rest.length === 1 && OPERATOR.test(rest[0])) return { kind, name: rest[0] };
  if (kind === "channel" && rest.length >= 2 && ADAPTER.test(rest[0])) {
    const chatId = rest.slice(1).join(":");
    if (chatId.length > 0 && chatId.length <= 128 && !/\s/.test(chatId)) return { kind, adapter: rest[0], chatId };
  }
  throw new AppError(
    "bad_request",
    `invalid address "${text.slice(0, 80)}": use agent:<name>, channel:<adapter>:<chat-id> or operator:<name>`,
  );
}

export function isAddress(text: string): boolean {
  try {
    parseAddress(text);
    return true;
  } catch {
    return false;
  }
}

export function formatAddress(address: Address): string {
  switch (address.kind) {
    case "agent":
      return `agent:${address.name}`;
    case "operator":
      return `operator:${address.name}`;
    case "channel":
      return `channel:${address.adapter}:${address.chatId}`;
  }
}

export const agentAddress = (name: string) => formatAddress({ kind: "agent", name });
export const channelAddress = (adapter: string, chatId: string) => formatAddress({ kind: "channel", adapter, chatId });
export const operatorAddress = (name: string) => formatAddress({ kind: "operator", name });

/** The platform of a channel adapter's name: "telegram-7" (a bot added as a record) → "telegram". */
export const platformOfAdapter = (adapter: string) => adapter.split("-")[0];
