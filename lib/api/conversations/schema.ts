import { z } from "zod";
import { conversationPriorities } from "../../db/conversation-status";
import { inboxViews } from "../../db/conversations";
import { labelName } from "../../inbox/labels";
import { conversationPatchSchema } from "../../pipeline/conversation-status";
import { handoffBodySchema } from "../../pipeline/handoff";
import { defineOperations, isoDate } from "../operation";
import { replyBodySchema, replyResponse, senderKind, timelineMessage } from "../messages/schema";
import { recordIdParam } from "../../record-id";

/** A conversation, every column (the Conversation table). */
export const conversationRow = z.strictObject({
  id: z.number().int(),
  /** The channel adapter: telegram, line (the environment's bots), telegram-<bot id>, line-<bot id>. */
  channel: z.string(),
  /** The bot the conversation is with (GET /api/v1/bots). */
  botId: z.number().int().nullable(),
  platformChatId: z.string(),
  /** The platform's chat type (private, group, supergroup, user, room…). */
  type: z.string(),
  title: z.string().nullable(),
  /** The history generation, bumped by every outbound message. */
  generation: z.number().int(),
  lastMessageAt: isoDate.nullable(),
  lastReadAt: isoDate.nullable(),
  agentEnabled: z.boolean(),
  activeForkId: z.number().int().nullable(),
  /** A forum topic: its thread id and name, and the chat's own conversation. */
  topicId: z.string().nullable(),
  topicName: z.string().nullable(),
  parentConversationId: z.number().int().nullable(),
  /** null = the bot may send; else blocked, removed or left. */
  membership: z.string().nullable(),
  membershipChangedAt: isoDate.nullable(),
  servedAt: isoDate.nullable(),
  /** Human handoff (docs/HANDOFF.md): null = the agent answers, else waiting or assigned. */
  handoffState: z.enum(["waiting", "assigned"]).nullable(),
  handoffReason: z.string().nullable(),
  handoffRequestedAt: isoDate.nullable(),
  handoffOperator: z.string().nullable(),
  handoffAssignedAt: isoDate.nullable(),
  handoffTimedOutAt: isoDate.nullable(),
  /** The last handoff handed back (for the next turn's note). */
  lastHandoffFrom: isoDate.nullable(),
  lastHandoffUntil: isoDate.nullable(),
  lastHandoffOperator: z.string().nullable(),
  /** The team inbox: open (new activity from the user reopens it), resolved, or snoozed until `snoozedUntil` (null: until the user writes). */
  status: z.enum(["open", "resolved", "snoozed"]),
  snoozedUntil: isoDate.nullable(),
  statusChangedAt: isoDate.nullable(),
  /** The operator who has it (an operator id), or null. */
  assigneeId: z.number().int().nullable(),
  /** Since when the user has waited for an answer (null once anything was sent). */
  waitingSince: isoDate.nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
  /** The team's priority: none, low, medium, high or urgent. */
  priority: z.enum(conversationPriorities),
});

const activeFork = z.strictObject({ id: z.number().int(), title: z.string().nullable(), status: z.string() }).nullable();

/** A row of the conversation list: the conversation, its active fork, last message and unread count. */
export const conversationSummary = conversationRow.extend({
  activeFork,
  lastMessage: z.strictObject({ text: z.string(), senderName: z.string().nullable(), senderKind, sentAt: isoDate }).nullable(),
  /** Inbound messages since an operator last opened it. */
  unread: z.number().int(),
  /** Its labels' names, by name. */
  labels: z.array(z.string()),
});

const inboxView = z.enum(inboxViews);
export const conversationListQuery = z.object({
  search: z.string().max(200).optional(),
  take: z.coerce.number().int().min(1).max(500).default(100),
  /** all (default), open, mine (open, assigned to the caller), unassigned (open), handoff (needs a human), resolved, snoozed. */
  view: inboxView.default("all"),
  /** activity (latest first, default), waiting (the user waiting longest for an answer first) or priority (urgent first, then latest). */
  sort: z.enum(["activity", "waiting", "priority"]).default("activity"),
  /** Only this bot's conversations. */
  botId: recordIdParam.optional(),
  /** Only conversations carrying this label (its name, ignoring case; a name no label has is a 400). */
  label: labelName.optional(),
  /** Only conversations of this priority. */
  priority: z.enum(conversationPriorities).optional(),
});
/** A bot as the conversation list labels and filters by (names only; GET /bots has the rest, for admins). */
export const botLabel = z.strictObject({
  id: z.number().int(),
  platform: z.string(),
  name: z.string(),
  username: z.string().nullable(),
  status: z.string(),
});

export const conversationListResponse = z.strictObject({
  conversations: z.array(conversationSummary),
  /** Every bot, removed ones too (their history stays readable): the list's labels and its bot filter. */
  bots: z.array(botLabel),
  /** How many conversations each view holds (within the label and priority filters). */
  counts: z.strictObject(
    Object.fromEntries(inboxViews.map((v) => [v, z.number().int()])) as Record<(typeof inboxViews)[number], z.ZodNumber>,
  ),
  /** Every label, by name, with how many of the caller's conversations carry it: the list's label filter. */
  labels: z.array(z.strictObject({ id: z.number().int(), name: z.string(), color: z.string(), conversations: z.number().int() })),
});
export const conversationCsvQuery = conversationListQuery.extend({ take: z.coerce.number().int().min(1).max(10_000).default(5_000) });

/** A conversation's handoff as the API shows it: null while the agent has it. */
export const handoffView = z
  .strictObject({
    state: z.enum(["waiting", "assigned"]),
    reason: z.string().nullable(),
    /** When it was handed off (the inbox orders by it). */
    since: isoDate.nullable(),
    operator: z.string().nullable(),
    assignedAt: isoDate.nullable(),
    /** When the user got the "nobody came" message, if they did. */
    timedOutAt: isoDate.nullable(),
  })
  .nullable();

export const conversationResponse = z.strictObject({
  conversation: conversationRow.extend({ handoff: handoffView, labels: z.array(z.string()) }),
});
export const handoffResponse = z.strictObject({ handoff: handoffView });
export const handoffListResponse = z.strictObject({
  /** Longest waiting first. */
  handoffs: z.array(
    handoffView
      .unwrap()
      .extend({ conversationId: z.number().int(), channel: z.string(), platformChatId: z.string(), title: z.string().nullable() }),
  ),
});
export const conversationPatchBody = conversationPatchSchema;

/** An internal note: operators read it in the timeline; it is never sent to the chat nor put in a prompt. */
export const noteView = z.strictObject({
  id: z.number().int(),
  conversationId: z.number().int(),
  /** The author's operator id (0: the API token) and sign-in name. */
  operatorId: z.number().int(),
  operatorName: z.string(),
  text: z.string(),
  createdAt: isoDate,
});
export const noteBody = z.strictObject({ text: z.string().trim().min(1, "the note is empty").max(4000) });
export const noteResponse = z.strictObject({ note: noteView });
export const notesResponse = z.strictObject({ notes: z.array(noteView) });

/** A status, assignee, priority, label or handoff change, as recorded by its envelope (lib/inbox/state-changes.ts). */
export const stateChangeView = z.strictObject({
  /** The envelope that records it. */
  id: z.number().int(),
  at: isoDate,
  kind: z.enum(["inbox", "handoff"]),
  action: z.enum(["resolve", "reopen", "snooze", "wake", "assign", "unassign", "priority", "label", "request", "take", "release"]),
  /** An operator's sign-in name, "user" (their message reopened or woke it), "timer" (a snooze ran out), or null. */
  by: z.string().nullable(),
  /** assign: who has it now (display name, else sign-in name). */
  assignee: z.string().nullable(),
  /** snooze: until when; null = until the user writes. */
  snoozedUntil: z.string().nullable(),
  /** request: why a human was asked for. */
  reason: z.string().nullable(),
  /** priority: the new priority. */
  priority: z.string().nullable(),
  /** label: the labels put on and taken off, by their names then. */
  labelsAdded: z.array(z.string()),
  labelsRemoved: z.array(z.string()),
});
export const stateChangesResponse = z.strictObject({ changes: z.array(stateChangeView) });

/** The person a conversation is with (a group: whoever of its users wrote last), from their stored messages. */
export const contactResponse = z.strictObject({
  contact: z
    .strictObject({
      name: z.string().nullable(),
      username: z.string().nullable(),
      channel: z.string(),
      /** Their id on the platform (Telegram user id, LINE user id). */
      platformUserId: z.string(),
      /** As their client reports it (Telegram language_code), when it does. */
      language: z.string().nullable(),
      firstSeen: isoDate.nullable(),
      lastSeen: isoDate.nullable(),
      /** Other conversations they wrote in (groups, topics), latest activity first. */
      otherConversations: z.array(
        z.strictObject({
          id: z.number().int(),
          title: z.string().nullable(),
          type: z.string(),
          platformChatId: z.string(),
          topicName: z.string().nullable(),
          status: z.string(),
          lastMessageAt: isoDate.nullable(),
          /** Their messages there. */
          messages: z.number().int(),
        }),
      ),
    })
    .nullable(),
  notes: z.array(noteView),
});

export const exportQuery = z.object({ format: z.enum(["json", "text"]).default("json") });

export const timelineQuery = z.object({
  before: recordIdParam.optional(),
  take: z.coerce.number().int().min(1).max(500).default(200),
});
export const timelineResponse = z.strictObject({
  conversation: conversationRow.extend({ activeFork }),
  /** Oldest first. */
  messages: z.array(timelineMessage),
  /** Pass as ?before= for the previous page; null at the start. */
  nextBefore: z.number().int().nullable(),
});

export const conversationStatsResponse = z.strictObject({
  /** Messages per hour, oldest first, 48 buckets. */
  activity: z.array(z.strictObject({ at: isoDate, inbound: z.number().int(), outbound: z.number().int() })),
  /** The agent's newest 100 turn latencies, oldest first. */
  latency: z.array(z.strictObject({ at: isoDate, ms: z.number(), failed: z.boolean() })),
  latencyP50: z.number().nullable(),
});

export const okResponse = z.strictObject({ ok: z.literal(true) });
/** What deleting a conversation's data removed besides its rows: stored files no other conversation uses. */
export const conversationDeleteResponse = z.strictObject({ removedFiles: z.number().int().min(0) });

export const operations = defineOperations([
  {
    method: "get",
    path: "/conversations",
    summary:
      "Conversations by last activity (or waiting, or priority), with last message, unread count, agent on/off, active fork and labels; ?label=<name>&priority=<p> filter (an unknown label is a 400)",
    query: conversationListQuery,
    response: { status: 200, schema: conversationListResponse },
  },
  {
    method: "get",
    path: "/conversations/{id}",
    summary: "One conversation, with `handoff`: null or { state: waiting | assigned, reason, since, operator }",
    response: { status: 200, schema: conversationResponse },
  },
  {
    method: "post",
    path: "/conversations/{id}/handoff",
    summary:
      "Move the human handoff: request (bot → waiting), take (waiting → assigned; one operator wins), release (back to the agent); 409 on an invalid transition",
    body: handoffBodySchema,
    response: { status: 200, schema: handoffResponse },
    errors: { 409: "Invalid transition for the current state (e.g. take when nobody is waiting, or another operator took it first)" },
  },
  {
    method: "get",
    path: "/handoffs",
    summary: 'Open handoffs ("Needs a human"), longest waiting first, with their reasons',
    response: { status: 200, schema: handoffListResponse },
  },
  {
    method: "patch",
    path: "/conversations/{id}",
    summary:
      "Change a conversation: status (open, resolved, snoozed with an optional snoozedUntil), assigneeId (an operator or null), agentEnabled, priority (none, low, medium, high, urgent), labels (the whole set, by name; 400 for a name no label has). Each status, assignee, priority or label change is an envelope in its history; resolving ends a handoff",
    body: conversationPatchBody,
    response: { status: 200, schema: conversationResponse },
    errors: { 409: "Another operator changed the status, assignee or priority meanwhile (nothing written)" },
  },
  {
    method: "delete",
    path: "/conversations/{id}",
    summary:
      "Admins: delete a conversation's data for good (messages, attachments, envelopes, turns, forks, notes) and the stored files no other conversation uses",
    response: { status: 200, schema: conversationDeleteResponse },
  },
  {
    method: "get",
    path: "/conversations/{id}/notes",
    summary: "A conversation's internal notes, oldest first",
    response: { status: 200, schema: notesResponse },
  },
  {
    method: "post",
    path: "/conversations/{id}/notes",
    summary: "Add an internal note: shown to operators in the timeline, never sent to the chat, never in a model's prompt",
    body: noteBody,
    response: { status: 201, schema: noteResponse },
  },
  {
    method: "get",
    path: "/conversations/{id}/changes",
    summary:
      "The conversation's status, assignee, priority, label and handoff changes, oldest first (the newest 500), read from the envelopes that record them; the timeline shows them between the messages",
    response: { status: 200, schema: stateChangesResponse },
  },
  {
    method: "get",
    path: "/conversations/{id}/contact",
    summary:
      "The contact panel: the user's name, username, platform id, language, first and last seen, their other conversations, and the notes",
    response: { status: 200, schema: contactResponse },
  },
  {
    method: "get",
    path: "/conversations/{id}/export",
    summary:
      "Export the conversation (messages, notes, envelopes): ?format=json (default) or text (readable, one line per entry), as a download",
    query: exportQuery,
    response: { status: 200, schema: z.unknown(), description: "JSON { conversation, messages, notes, envelopes }, or text/plain" },
  },
  {
    method: "get",
    path: "/conversations/export",
    summary:
      "The conversation list (same view, sort and search as GET /conversations, up to 10,000) as CSV; cells starting with = + - @ get a leading quote",
    query: conversationCsvQuery,
    response: { status: 200, schema: z.string(), contentType: "text/csv", description: "CSV with a header line" },
  },
  {
    method: "get",
    path: "/conversations/{id}/messages",
    summary: "A conversation's timeline, oldest first; page backwards with ?before=<message id> (changes nothing)",
    query: timelineQuery,
    response: { status: 200, schema: timelineResponse },
  },
  {
    method: "post",
    path: "/conversations/{id}/messages",
    summary:
      "An operator's plain message to the chat (not a reply), in the active fork if one is open: 201 once delivered (`recorded: false` with a warning when not saved)",
    body: replyBodySchema,
    response: { status: 201, schema: replyResponse },
    errors: {
      409: "The conversation's bot is removed or disabled (nothing written)",
      502: "Not delivered (recorded on the envelope; `details.envelopeId`, and `details.outcome`)",
    },
  },
  {
    method: "post",
    path: "/conversations/{id}/read",
    summary: "Mark the conversation read (its unread count drops to 0)",
    response: { status: 200, schema: okResponse },
  },
  {
    method: "get",
    path: "/conversations/{id}/stats",
    summary: "Messages per hour over two days and the agent's turn latencies",
    response: { status: 200, schema: conversationStatsResponse },
  },
]);
