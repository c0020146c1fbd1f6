import { attachmentView } from "../media/attachment-views";
import { z } from "zod";
import { searchQuerySchema } from "../search/search";
import { defineOperations, isoDate } from "./operation";

/**
 * One server-sent event's `data:` (its `event:` is the type). Coarse on purpose:
 * ids to narrow what a page refetches, never the data itself.
 */
export const liveEvent = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("message"), conversationId: z.number().int(), messageId: z.number().int().optional() }),
  z.strictObject({
    type: z.literal("envelope"),
    conversationId: z.number().int().nullable().optional(),
    envelopeId: z.number().int().optional(),
  }),
  z.strictObject({ type: z.literal("fork"), conversationId: z.number().int().nullable().optional(), forkId: z.number().int().optional() }),
  z.strictObject({ type: z.literal("settings") }),
  /** An operator, an invitation or a session changed. */
  z.strictObject({ type: z.literal("operators") }),
  /** Something about conversations changed (membership, an unsent message, a topic name, a handoff). */
  z.strictObject({ type: z.literal("conversation"), conversationId: z.number().int().nullable().optional() }),
]);

export { searchQuerySchema };
export const searchResponse = z.strictObject({
  /** Best matches first (ranked among the newest 2,000 matches). */
  results: z.array(
    z.strictObject({
      messageId: z.number().int(),
      conversationId: z.number().int(),
      /** HTML-escaped text whose only markup is <mark> around the hits. */
      snippet: z.string(),
      sentAt: isoDate,
      /** The sender took it back (LINE unsend): still found, as in the timeline, where its text stays for operators. */
      deletedAt: isoDate.nullable(),
      senderName: z.string().nullable(),
      /** user, agent, operator or system: with senderName, what the console shows as the sender. */
      senderKind: z.string(),
      conversationTitle: z.string().nullable(),
      /** The conversation's platform: telegram or line. */
      channel: z.string(),
      /** The message's files, as on the timeline. */
      attachments: z.array(attachmentView),
    }),
  ),
  /** The operators' internal notes that match (every term in the note), newest first; never shown to the model. */
  notes: z.array(
    z.strictObject({
      noteId: z.number().int(),
      conversationId: z.number().int(),
      /** HTML-escaped text whose only markup is <mark> around the hits. */
      snippet: z.string(),
      createdAt: isoDate,
      /** The author's sign-in name. */
      operatorName: z.string(),
      conversationTitle: z.string().nullable(),
      channel: z.string(),
    }),
  ),
  /** The search stopped at its time limit (3 s): `results` are what it found by then; narrow it (conversation, sender, dates) to find more. */
  incomplete: z.boolean(),
});

export const operations = defineOperations([
  {
    method: "get",
    path: "/search",
    summary:
      "Search over message text, best matches first; words only (operators and quotes are ignored), every word must match, each as the start of a word; filters by conversation, sender kind, platform and date",
    query: searchQuerySchema,
    response: { status: 200, schema: searchResponse },
  },
  {
    method: "get",
    path: "/events",
    summary:
      "Server-sent events for open pages: `retry:` first, then one event per change (message, envelope, fork, conversation, settings, operators); a stream whose session ends (signed out, disabled, removed) is closed, heartbeat comments every 15 s",
    response: {
      status: 200,
      schema: liveEvent,
      contentType: "text/event-stream",
      description: "A stream; each event's `data:` is one JSON object of this schema",
    },
    errors: {
      429: "this session (or the API token) already holds LIVE_STREAMS_PER_SESSION streams",
      503: "the instance already serves LIVE_STREAMS_TOTAL streams; pages poll instead",
    },
  },
]);
