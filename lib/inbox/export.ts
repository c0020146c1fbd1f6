import type { ConversationExport } from "../db/conversation-export";
import { readEnvelopeMetadata } from "../db/envelope-metadata";

/**
 * Exports for people: a conversation as readable text, the conversation list as
 * CSV. Pure formatting of rows already read (the JSON export is the rows as they are).
 */

const stamp = (d: Date) =>
  d
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d{3}Z$/, "Z");

/**
 * One conversation as text: its messages, the operators' notes and the inbox and
 * handoff changes, interleaved by time, one entry per line (continuation lines indented).
 */
export function conversationText(data: ConversationExport): string {
  const c = data.conversation;
  const entries: { at: Date; order: number; line: string }[] = [];
  for (const m of data.messages) {
    const who =
      m.senderKind === "user"
        ? (m.senderName ?? "user")
        : m.senderKind === "operator"
          ? `operator ${m.senderName ?? ""}`.trim()
          : m.senderKind;
    // deletedBy: an operator took it back from the chat; else the sender did (LINE unsend, a Telegram deletion).
    const deleted = m.deletedAt ? `(deleted by ${m.deletedBy ?? "the sender"})` : "";
    const marks = [m.editedAt ? "(edited)" : "", deleted].filter(Boolean).join(" ");
    entries.push({ at: m.sentAt, order: 0, line: `${who}: ${m.text}${marks ? ` ${marks}` : ""}` });
  }
  for (const n of data.notes) entries.push({ at: n.createdAt, order: 1, line: `NOTE by ${n.operatorName}: ${n.text}` });
  for (const e of data.envelopes) {
    const meta = readEnvelopeMetadata(e.metadata);
    // Message envelopes repeat the messages; the changes are what the history adds.
    if (meta.inbox || (meta.handoff?.action && !e.messageId)) entries.push({ at: e.createdAt, order: 2, line: `— ${e.text}` });
  }
  entries.sort((a, b) => a.at.getTime() - b.at.getTime() || a.order - b.order);
  const title = c.title ?? `chat ${c.platformChatId}`;
  const head = [
    `Conversation #${c.id}: ${title} (${c.channel} ${c.type}, chat ${c.platformChatId})`,
    `Status: ${c.status}`,
    `Priority: ${c.priority}`,
    `Labels: ${c.labels.length > 0 ? c.labels.join(", ") : "none"}`,
    "",
  ];
  return `${[...head, ...entries.map((e) => `[${stamp(e.at)}] ${e.line.replace(/\r\n?|[\n\u2028\u2029]/g, "\n    ")}`)].join("\n")}\n`;
}

/**
 * One CSV cell (RFC 4180 quoting). A cell a spreadsheet would read as a formula
 * (starting with = + - @, or a tab or carriage return before one) gets a leading
 * quote, so a user's message never runs as one.
 */
export function csvCell(value: string | number | boolean | Date | null | undefined): string {
  if (value === null || value === undefined) return "";
  let text = value instanceof Date ? value.toISOString() : String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export type CsvConversation = {
  id: number;
  channel: string;
  botId: number | null;
  platformChatId: string;
  type: string;
  title: string | null;
  topicName: string | null;
  status: string;
  snoozedUntil: Date | null;
  assigneeId: number | null;
  handoffState: string | null;
  priority: string;
  /** Label names. */
  labels: string[];
  lastMessageAt: Date | null;
  waitingSince: Date | null;
  unread: number;
  lastMessage: { text: string; senderName: string | null; senderKind: string } | null;
};

const columns = [
  "id",
  "channel",
  "chat id",
  "type",
  "title",
  "topic",
  "status",
  "snoozed until",
  "assignee",
  "handoff",
  "priority",
  "labels",
  "last activity",
  "waiting since",
  "unread",
  "last sender",
  "last message",
];

/** Who the CSV says sent a message: the conversation's bot by its username, operators by the name the console shows. */
export type CsvNames = {
  operators: readonly { id: number; name: string; displayName: string | null }[];
  /** Every bot (removed ones too: their conversations may still be listed). */
  bots: readonly { id: number; adapter: string; name: string; username: string | null }[];
  /** The environment's Telegram bot's username (getMe), for its row while that has none yet; null while unknown. */
  botUsername: string | null;
};

/**
 * The conversation list as CSV, a header line first. People read it: assignees and
 * senders by the names the console shows (never the internal agent name, e.g. `main`).
 */
export function conversationsCsv(rows: CsvConversation[], names: CsvNames): string {
  const byId = new Map(names.operators.map((o) => [o.id, o.displayName ?? o.name]));
  const byName = new Map(names.operators.map((o) => [o.name, o.displayName ?? o.name]));
  const bots = new Map(names.bots.map((b) => [b.id, b]));
  // Not "@name": a cell starting with @ would get the formula guard's quote.
  const botOf = (c: CsvConversation) => {
    const bot = c.botId === null ? undefined : bots.get(c.botId);
    const username = bot?.username ?? (bot?.adapter === "telegram" ? names.botUsername : null);
    return username ? `${username} (bot)` : bot ? `${bot.name} (bot)` : "the bot";
  };
  const sender = (c: CsvConversation, m: NonNullable<CsvConversation["lastMessage"]>) => {
    if (m.senderKind === "agent") return botOf(c);
    if (m.senderKind === "operator" && m.senderName) return byName.get(m.senderName) ?? m.senderName;
    return m.senderName ?? m.senderKind;
  };
  const lines = rows.map((c) =>
    [
      c.id,
      c.channel,
      c.platformChatId,
      c.type,
      c.title,
      c.topicName,
      c.status,
      c.snoozedUntil,
      c.assigneeId === null ? null : (byId.get(c.assigneeId) ?? `#${c.assigneeId}`),
      c.handoffState,
      c.priority,
      c.labels.join("; "),
      c.lastMessageAt,
      c.waitingSince,
      c.unread,
      c.lastMessage ? sender(c, c.lastMessage) : null,
      c.lastMessage?.text,
    ]
      .map(csvCell)
      .join(","),
  );
  return `${[columns.join(","), ...lines].join("\r\n")}\r\n`;
}
