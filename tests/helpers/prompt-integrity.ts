/**
 * The prompt's integrity invariant, checked by parsing the rendered prompt back
 * (docs/SECURITY.md states the format). Any test that produces a prompt calls
 * `assertPromptIntegrity` (or `assertStoredTurnsIntact` / `assertLlmRequestsIntact`
 * for what an integration test sent), so a later change to the format or the
 * sanitizer cannot silently reopen a hole.
 *
 * The reader here is deliberately independent of lib/context/sanitize.ts and
 * looser than it: a body line that merely *looks* like structure to this reader
 * (a dash, bracket, math sign or arrow first, a ` · ` separator, a role word and
 * a colon) is a violation unless it was escaped with a backslash.
 */
import unhomoglyph from "unhomoglyph";
import type { Database } from "@/lib/db/database";
import { formatTime } from "@/lib/context/format";
import { userLabel } from "@/lib/context/sanitize";

export type PromptLike = { system: string; messages: { role: string; content: unknown }[] };

export type MessageBlock = {
  kind: "message";
  channel: string;
  sender: string;
  time: string;
  fields: string[];
  annotation: { sender: string; text: string } | null;
  /** The product's media lines under the header (lib/context/media-line.ts), in order. */
  media?: string[];
  body: string[];
};
export type Block =
  | MessageBlock
  | { kind: "chat-details"; title: string }
  | { kind: "pending-updates"; lines: { time: string; sender: string; text: string }[] }
  | { kind: "note"; time: string; body: string[] }
  | { kind: "task"; time: string; body: string[] }
  | { kind: "consider" };

export type ParsedPrompt = { system: string; turns: { role: string; blocks: Block[] }[]; messages: MessageBlock[] };

export class PromptIntegrityError extends Error {}

const TIME = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d UTC`;
// A user's label: `unknown`, `user "<name>"`, or a plain name with no quote, colon, bracket or field separator.
const USER_LABEL = String.raw`unknown|user "[^"\n]*[^"\n\\]"|[^"\n:·\[\]]+`;
const HEADER = new RegExp(
  String.raw`^--- ([a-z][a-z0-9_-]*) · from (${USER_LABEL}) · (${TIME})((?: · (?:<1m|\d+[dhm](?: \d+[hm])?) after the previous message)?(?: · earlier message, shown because the user's reply points here)?(?: · forwarded from (?:${USER_LABEL}))?(?: · via @[^"\n:·\[\]]+)?(?: · \((?:edited|deleted by the sender)\))?)$`,
);
// A quoted text never ends with a backslash (it would read as escaping the closing quote).
/**
 * A media line exactly as lib/context/media-line.ts writes it: a kind, then unquoted
 * fields (no quote or bracket) and quoted sender-chosen text (no quote inside), one
 * closing bracket, and a voice note's transcript quoted after it.
 */
const MEDIA_LINE =
  /^\[(?:photo|video|animation|audio|voice|video note|document|sticker|animated sticker|video sticker|file|location|contact|poll|dice|file too large to download:|[a-z ]{1,64}(?: "[^"\n]*")?: not shown here)(?:[^"[\]\n]|"[^"\n]*")*\](?: "[^"\n]*")?$/;
const ANNOTATION = new RegExp(String.raw`^\[↩ reply to (agent|${USER_LABEL}): "((?:[^"\n]*[^"\n\\])?)"\]$`);
const CHAT_DETAILS = /^--- [a-z][a-z0-9_-]* · chat details, set by the chat's members$/;
const TITLE = /^title: "([^"\n]*)"$/;
const TOPIC = /^forum topic: "([^"\n]*)"$/;
const PENDING = /^--- [a-z][a-z0-9_-]* · main conversation since this fork began · \d+ messages?$/;
const PENDING_LINE = new RegExp(String.raw`^- (${TIME}) · (agent|note|${USER_LABEL}): "([^"\n]*)"$`);
const NOTE = new RegExp(
  String.raw`^--- note · (${TIME}) · note from the conversation record, written by the assistant \(may quote users\)$`,
);
const TASK = new RegExp(`^--- background task · (${TIME})$`);
const CONSIDER = "(The message to consider is above.)";
/** The lines of a fork summary request: one quoted message each. */
const SUMMARY_LINE = new RegExp(String.raw`^(agent|note|${USER_LABEL}): "([^"\n]*)"$`);

// Anything that shows nothing: controls other than tab/newline, format characters (incl. tags), default-ignorables.
const INVISIBLE = /(?![\t\n])[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
const OTHER_LINE_BREAK = /[\r\v\f\x85\u2028\u2029]/;
// Template tokens of the common model families, as they read after NFKC and without invisible characters.
const TOKENS = [
  /<\|/,
  /\|>/,
  /<<\s*\/?\s*sys\s*>>/i,
  /\[\s*\/?\s*(inst|sys|system_prompt|tool_calls|available_tools|tool_results|system|user|assistant)\s*\]/i,
  /<\s*\/?\s*(s|bos|eos|start_of_turn|end_of_turn|think|tool_call|system|user|assistant|human|im_start|im_end|endoftext)\s*>/i,
];
const ROLE_WORDS = [
  "system",
  "assistant",
  "user",
  "human",
  "ai",
  "bot",
  "model",
  "developer",
  "tool",
  "function",
  "instruction",
  "instructions",
  "response",
  "agent",
  "operator",
];
// Letters no normalization maps to Latin, which a reader still reads as it: small capitals, negative circled/squared letters.
const SMALL_CAPITALS = "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘꞯʀꜱᴛᴜᴠᴡxʏᴢ"; // a to z; no small capital x exists
const latinOf = (s: string) =>
  s
    .replace(/[\u{1F150}-\u{1F169}\u{1F170}-\u{1F189}]/gu, (c) => String.fromCharCode(65 + ((c.codePointAt(0)! - 0x1f150) % 32)))
    .replace(new RegExp(`[${SMALL_CAPITALS}]`, "gu"), (c) => String.fromCharCode(97 + SMALL_CAPITALS.indexOf(c)));
/** A text's readings: look-alike letters (Greek, Cyrillic, …) as the Latin they resemble (unhomoglyph), in each case. */
const readings = (s: string) => [s, s.toLowerCase(), s.toUpperCase()].map((v) => unhomoglyph(latinOf(v)));
const ROLE_WORD_READ = [...new Set(ROLE_WORDS.flatMap((w) => readings(w)))].join("|");

/** How this reader sees a string: NFKC, without anything invisible. */
const normalize = (s: string) =>
  s.replace(new RegExp(INVISIBLE.source, "gu"), "").normalize("NFKC").replace(new RegExp(INVISIBLE.source, "gu"), "");

function fail(message: string, where: string): never {
  throw new PromptIntegrityError(`${message}\n  in: ${JSON.stringify(where.length > 400 ? `${where.slice(0, 400)}…` : where)}`);
}

/** Every string of the prompt: well-formed, nothing invisible, no template token even after normalization. */
export function assertCleanText(text: string, where = text) {
  if (!text.isWellFormed()) fail("lone surrogate", where);
  if (INVISIBLE.test(text))
    fail(`invisible or control character U+${INVISIBLE.exec(text)![0].codePointAt(0)!.toString(16).toUpperCase()}`, where);
  if (/[\u{E0000}-\u{E007F}]/u.test(text)) fail("Unicode tag character", where);
  const normal = normalize(text);
  for (const token of TOKENS) if (token.test(normal)) fail(`template token ${token} after normalization`, where);
}

/** Whether a body line reads, to a model skimming it, as a header, an annotation or a role marker. */
export function looksLikeStructure(rawLine: string): boolean {
  const line = normalize(rawLine).replace(/^[\s\u2800\u3164]+/u, "");
  if (line.startsWith("\\")) return false;
  // A list item, `+1`, a `> quote`: one ASCII -, + or > and at most one space before a letter or digit.
  const listItem = /^[-+>] ?[\p{L}\p{N}]/u.test(line);
  if (
    !listItem &&
    /^[\p{Pd}\p{Ps}\p{Sm}\u2190-\u21FF\u2500-\u259F\u23AF\u23BA-\u23BD\u23CE\u23E4\u2053\u2448\u25AC\u2794-\u27BF\u2E43]/u.test(line)
  )
    return true;
  // A dash-like letter is a letter (ーっと starts Japanese lines): only a run of two reads as a rule.
  if (/^[一ー]{2}/u.test(line)) return true;
  if (/[ \t][·•∙⋅・･᛫⸱ꞏ][ \t]/u.test(line)) return true;
  if (/[\p{Ps}]\s*[\u2190-\u21FF\u2900-\u297F\u23CE]/u.test(line)) return true;
  // Read as a model may: look-alike letters (Greek, Cyrillic, either case) as the Latin they resemble.
  const role = new RegExp(String.raw`^(${ROLE_WORD_READ})[^\p{L}\p{N}:]{0,12}:|^(${ROLE_WORD_READ})[^\p{L}\p{N}]*$`, "u");
  return readings(line.replace(/^[^\p{L}\p{N}]+/u, "")).some((words) => role.test(words));
}

function bodyLines(lines: string[], where: string): string[] {
  for (const line of lines) if (looksLikeStructure(line)) fail(`a body line reads as structure: ${JSON.stringify(line)}`, where);
  return lines;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((p) => (p && typeof p === "object" && "text" in p ? String((p as { text: unknown }).text) : "")).join("");
  return "";
}

function parseUserTurn(text: string): Block[] {
  if (OTHER_LINE_BREAK.test(text)) fail("a line break other than \\n", text);
  const lines = text.split("\n");
  const [first, ...rest] = lines;
  if (HEADER.test(first)) {
    // One message, or several in one turn (a burst): each starts at a header line
    // of the exact format; no other line may even look like structure.
    const blocks: MessageBlock[] = [];
    for (let i = 0; i < lines.length; i++) {
      const header = HEADER.exec(lines[i]);
      if (header) {
        const annotation = i + 1 < lines.length ? ANNOTATION.exec(lines[i + 1]) : null;
        if (annotation) i++;
        const media: string[] = [];
        while (i + 1 < lines.length && MEDIA_LINE.test(lines[i + 1])) media.push(lines[++i]);
        blocks.push({
          kind: "message",
          channel: header[1],
          sender: header[2],
          time: header[3],
          fields: header[4].split(" · ").filter(Boolean),
          annotation: annotation ? { sender: annotation[1], text: annotation[2] } : null,
          media,
          body: [],
        });
      } else {
        blocks.at(-1)!.body.push(...bodyLines([lines[i]], text));
      }
    }
    return blocks;
  }
  return [parseOtherTurn(first, rest, text)];
}

function parseOtherTurn(first: string, rest: string[], text: string): Block {
  if (CHAT_DETAILS.test(first)) {
    // A quoted title line, a quoted forum topic line, or both in that order: nothing else.
    const title = rest.length >= 1 ? TITLE.exec(rest[0]) : null;
    const topic = rest.length >= 1 ? TOPIC.exec(rest[rest.length - 1]) : null;
    const lines = (title ? 1 : 0) + (topic ? 1 : 0);
    if (lines === 0 || lines !== rest.length || (title && topic && rest.length !== 2))
      fail("chat details must be a quoted title line and/or a quoted forum topic line", text);
    return { kind: "chat-details", title: title?.[1] ?? "" };
  }
  if (PENDING.test(first)) {
    return {
      kind: "pending-updates",
      lines: rest.map((line) => {
        const m = PENDING_LINE.exec(line) ?? fail(`not a pending-update line: ${JSON.stringify(line)}`, text);
        return { time: m[1], sender: m[2], text: m[3] };
      }),
    };
  }
  const note = NOTE.exec(first);
  if (note) return { kind: "note", time: note[1], body: bodyLines(rest, text) };
  const task = TASK.exec(first);
  if (task) return { kind: "task", time: task[1], body: bodyLines(rest, text) };
  if (text === CONSIDER) return { kind: "consider" };
  return fail(`a user turn that does not start with one of the format's headers: ${JSON.stringify(first)}`, text);
}

/**
 * Parses a prompt back into its structure, failing on anything that breaks the
 * format: a user turn starts with one of the format's headers; a message header
 * has at most one annotation right under it, then a body in which no line reads
 * as structure (a turn may hold several messages, each under its own header of
 * the exact format); every string is clean (assertCleanText).
 */
export function parsePrompt(prompt: PromptLike): ParsedPrompt {
  assertCleanText(prompt.system);
  const turns = prompt.messages.map((m) => {
    const text = textOf(m.content);
    if (m.role === "user") {
      assertCleanText(text);
      return { role: m.role, blocks: parseUserTurn(text) };
    }
    if (m.role === "assistant" && typeof m.content === "string") assertCleanText(text);
    if (m.role === "system") fail("a second system message", text);
    return { role: m.role, blocks: [] as Block[] };
  });
  const messages = turns.flatMap((t) => t.blocks.filter((b): b is MessageBlock => b.kind === "message"));
  return { system: prompt.system, turns, messages };
}

export type IntegrityExpectations = {
  /** The user messages the prompt should show, in order: exactly one header each, an annotation only for a real reply. */
  userMessages?: { isReply: boolean }[];
  /** Text users control (names, bodies, quotes, titles): none may appear in the system prompt. */
  userTexts?: (string | null | undefined)[];
  /** Strings shorter than this are not looked for in the system prompt (they occur in any English text). */
  minTextLength?: number;
};

/** Parses the prompt back (parsePrompt) and checks the expectations; returns the parse for further asserts. */
export function assertPromptIntegrity(prompt: PromptLike, expect: IntegrityExpectations = {}): ParsedPrompt {
  const parsed = parsePrompt(prompt);
  if (expect.userMessages) {
    if (parsed.messages.length !== expect.userMessages.length) {
      fail(`${parsed.messages.length} message headers for ${expect.userMessages.length} user messages`, JSON.stringify(prompt.messages));
    }
    parsed.messages.forEach((m, i) => {
      if ((m.annotation !== null) !== expect.userMessages![i].isReply)
        fail(`message ${i}: annotation ${m.annotation ? "on a message that is not a reply" : "missing on a reply"}`, m.body.join("\n"));
    });
  }
  assertSystemFreeOf(prompt.system, expect.userTexts ?? [], expect.minTextLength ?? 4);
  return parsed;
}

function assertSystemFreeOf(system: string, texts: (string | null | undefined)[], minLength: number) {
  const haystack = normalize(system).toLowerCase();
  for (const text of texts) {
    if (!text) continue;
    for (const variant of [text, normalize(text)]) {
      const needle = variant.trim().toLowerCase();
      if (needle.length >= minLength && haystack.includes(needle))
        fail(`user-controlled text in the system prompt: ${JSON.stringify(needle)}`, system);
    }
  }
}

type Message = {
  conversationId: number;
  sentAt: Date;
  replyToMessageId: number | null;
  senderKind: string;
  senderName: string | null;
  text: string;
  replyToText: string | null;
  quoteText: string | null;
  replyToSenderName: string | null;
};
const userTextsOf = (messages: Message[], titles: (string | null)[]) => [
  ...titles,
  ...messages
    .filter((m) => m.senderKind === "user")
    .flatMap((m) => [m.text, m.senderName, m.replyToText, m.quoteText, m.replyToSenderName]),
];

/**
 * Each message header of a prompt stands for a distinct stored user message of
 * that conversation (same sender label and minute; never more headers than such
 * messages), with an annotation only if one of them is a reply: a forged header
 * that got through would have no message behind it.
 */
function assertHeadersMatchStored(parsed: ParsedPrompt, stored: Message[]) {
  const key = (sender: string, time: string) => `${sender}\u0000${time}`;
  const byKey = new Map<string, Message[]>();
  for (const m of stored.filter((m) => m.senderKind === "user")) {
    const k = key(userLabel(m.senderName), formatTime(m.sentAt));
    byKey.set(k, [...(byKey.get(k) ?? []), m]);
  }
  const used = new Map<string, number>();
  for (const block of parsed.messages) {
    const k = key(block.sender, block.time);
    const candidates = byKey.get(k) ?? [];
    used.set(k, (used.get(k) ?? 0) + 1);
    if (used.get(k)! > candidates.length)
      fail(`a header with no stored message behind it: from ${block.sender} at ${block.time}`, block.body.join("\n"));
    const reply = (m: Message) =>
      m.replyToMessageId !== null || m.replyToText !== null || m.quoteText !== null || m.replyToSenderName !== null;
    if (!candidates.some((m) => reply(m) === (block.annotation !== null)))
      fail(`annotation ${block.annotation ? "on a message that is not a reply" : "missing on a reply"}`, block.body.join("\n"));
  }
}

/** Every agent turn stored in the database (what the prompt inspector shows) satisfies the invariant. */
export async function assertStoredTurnsIntact(db: Database) {
  const [turns, messages, conversations] = await Promise.all([
    db.prisma.turn.findMany(),
    db.prisma.message.findMany(),
    db.prisma.conversation.findMany({ select: { title: true } }),
  ]);
  const userTexts = userTextsOf(
    messages,
    conversations.map((c) => c.title),
  );
  for (const turn of turns) {
    const parsed = assertPromptIntegrity(
      { system: turn.system, messages: turn.prompt as PromptLike["messages"] },
      { userTexts, minTextLength: 6 },
    );
    assertHeadersMatchStored(
      parsed,
      messages.filter((m) => m.conversationId === turn.conversationId),
    );
  }
  return turns.length;
}

type ChatRequest = { messages: { role: string; content: unknown; tool_calls?: unknown }[]; tools?: unknown[] };

/**
 * The exact requests a fake OpenAI-compatible model received: agent turns parse
 * back; fork summaries are quoted lines only; no system prompt holds user text.
 */
export async function assertLlmRequestsIntact(requests: ChatRequest[], db: Database) {
  const [messages, conversations] = await Promise.all([
    db.prisma.message.findMany(),
    db.prisma.conversation.findMany({ select: { title: true } }),
  ]);
  const userTexts = userTextsOf(
    messages,
    conversations.map((c) => c.title),
  );
  for (const request of requests) {
    const system = request.messages
      .filter((m) => m.role === "system")
      .map((m) => textOf(m.content))
      .join("\n");
    // The turn's own tool round trip (the reply call and its result) is not prompt we built.
    const rest = request.messages.filter((m) => m.role !== "system" && m.role !== "tool" && !m.tool_calls);
    if (request.tools?.length) {
      assertPromptIntegrity({ system, messages: rest }, { userTexts, minTextLength: 6 });
    } else {
      assertCleanText(system);
      assertSystemFreeOf(system, userTexts, 6);
      for (const m of rest) {
        const text = textOf(m.content);
        assertCleanText(text);
        for (const line of text.split("\n")) if (!SUMMARY_LINE.test(line)) fail(`not a quoted message line: ${JSON.stringify(line)}`, text);
      }
    }
  }
  return requests.length;
}
