import { z } from "zod";
import { receiveMailSchema, sendEnvelopeSchema } from "../pipeline/envelopes";
import { exitStrategySchema, startTaskSchema } from "../pipeline/forks";
import { replyBodySchema } from "../pipeline/operator-reply";
import { settingsUpdateSchema } from "../settings/schema";

const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: "input", unrepresentable: "any" });
const id = (name = "id") => ({ name, in: "path", required: true, schema: { type: "integer", minimum: 1 } });
const ok = (description: string) => ({ description, content: { "application/json": { schema: { type: "object" } } } });
const errors = {
  "400": { $ref: "#/components/responses/BadRequest" },
  "401": { $ref: "#/components/responses/Unauthorized" },
  "404": { $ref: "#/components/responses/NotFound" },
};
const body = (s: z.ZodType) => ({ required: true, content: { "application/json": { schema: schema(s) } } });

/** The OpenAPI 3.1 description of /api/v1, served at /api/v1/openapi.json. */
export function openApiDocument() {
  return {
    openapi: "3.1.0",
    info: { title: "Switchboard API", version: "1", description: "Operator console API. Authenticate with an operator session cookie (plus x-csrf-token on mutations) or Authorization: Bearer <SWITCHBOARD_API_TOKEN>." },
    servers: [{ url: "/api/v1" }],
    security: [{ bearer: [] }, { session: [] }],
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer" },
        session: { type: "apiKey", in: "cookie", name: "sb_session" },
      },
      responses: {
        BadRequest: { description: "Invalid input; `error.details` holds the zod issues" },
        Unauthorized: { description: "No valid session or API token" },
        NotFound: { description: "Unknown id" },
      },
    },
    paths: {
      "/status": { get: { summary: "Configured model (never its key), channel mode, database", responses: { "200": ok("status"), ...errors } } },
      "/conversations": {
        get: {
          summary: "Conversations by last activity, with unread counts",
          parameters: [{ name: "search", in: "query", schema: { type: "string" } }, { name: "take", in: "query", schema: { type: "integer" } }],
          responses: { "200": ok("conversations"), ...errors },
        },
      },
      "/conversations/{id}/messages": {
        get: { summary: "A conversation's timeline, oldest first; page with ?before=<message id>", parameters: [id(), { name: "before", in: "query", schema: { type: "integer" } }], responses: { "200": ok("messages"), ...errors } },
      },
      "/conversations/{id}/read": { post: { summary: "Mark the conversation read", parameters: [id()], responses: { "200": ok("ok"), ...errors } } },
      "/messages/{id}/thread": { get: { summary: "The reply tree around a message (one query)", parameters: [id()], responses: { "200": ok("thread"), ...errors } } },
      "/messages/{id}/reply": {
        post: { summary: "An operator's threaded reply, sent as a native reply", parameters: [id()], requestBody: body(replyBodySchema), responses: { "201": ok("sent"), "502": { description: "The platform refused; recorded on the envelope" }, ...errors } },
      },
      "/envelopes": {
        post: { summary: "Send an envelope (deliverAt: ISO time or +30m/+2h)", requestBody: body(sendEnvelopeSchema), responses: { "201": ok("created"), "403": { description: "Agent not bound to the adapter" }, ...errors } },
        get: {
          summary: "List envelopes, newest first (changes nothing); page with ?before=<nextBefore>",
          parameters: ["to", "from", "address", "status", "conversation", "scheduled", "before", "take"].map((name) => ({ name, in: "query", schema: { type: "string" } })),
          responses: { "200": ok("envelopes"), ...errors },
        },
      },
      "/envelopes/receive": {
        post: { summary: "An agent receives its due pending mail; each envelope is marked done as it is handed over (at most once)", requestBody: body(receiveMailSchema), responses: { "200": ok("envelopes, acknowledged"), ...errors } },
      },
      "/envelopes/{id}": { get: { summary: "One envelope with its metadata", parameters: [id()], responses: { "200": ok("envelope"), ...errors } } },
      "/envelopes/{id}/retry": {
        post: { summary: "Retry a failed envelope: a failed turn runs again, a failed send goes out again", parameters: [id()], responses: { "200": ok("envelope, retried: turn | send"), "409": { description: "Not failed" }, ...errors } },
      },
      "/envelopes/{id}/thread": { get: { summary: "Chain to the root and the tree below it (one query)", parameters: [id()], responses: { "200": ok("thread"), ...errors } } },
      "/forks": {
        get: { summary: "Forks, newest first (?conversationId=)", parameters: [{ name: "conversationId", in: "query", schema: { type: "integer" } }], responses: { "200": ok("forks"), ...errors } },
        post: { summary: "Run a task in the background (a background fork)", requestBody: body(startTaskSchema), responses: { "201": ok("fork and envelope"), ...errors } },
      },
      "/forks/{id}/resume": { post: { summary: "Make the fork the conversation's active interactive fork", parameters: [id()], responses: { "200": ok("fork"), "409": { description: "Another fork is active" }, ...errors } } },
      "/forks/{id}/exit": { post: { summary: "Leave an interactive fork", parameters: [id()], requestBody: body(exitStrategySchema), responses: { "200": ok("fork"), "409": { description: "Not an active interactive fork" }, ...errors } } },
      "/messages/{id}/turn": { get: { summary: "The agent turn behind a message (the user's message it answered, or the agent's answer): { turnId }", parameters: [id()], responses: { "200": ok("turnId"), ...errors } } },
      "/turns/{id}": { get: { summary: "Prompt inspector: the system prompt, messages, tool calls of one agent turn, with previousTurnId/nextTurnId in its conversation", parameters: [id()], responses: { "200": ok("turn"), ...errors } } },
      "/queue": {
        get: {
          summary: "The worker's queue: turns waiting and running, oldest wait, limits in force, this instance's model calls, time to answer per minute (p50/p99, last hour)",
          responses: { "200": ok("queue"), ...errors },
        },
      },
      "/settings": {
        get: { summary: "Settings and their change log", responses: { "200": ok("settings"), ...errors } },
        patch: { summary: "Update some settings (effective on the next message)", requestBody: body(settingsUpdateSchema), responses: { "200": ok("settings"), ...errors } },
      },
      "/simulator/updates": { post: { summary: "Sandbox only: play a Telegram user through the webhook", responses: { "200": ok("webhook result"), "403": { description: "A real bot token is configured" }, ...errors } } },
    },
  };
}
