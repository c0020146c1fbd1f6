import { z } from "zod";
import { defineOperations } from "./operation";

/** What is configured, never keys, tokens or secrets. */
export const statusResponse = z.strictObject({
  model: z.strictObject({ provider: z.string(), modelId: z.string() }).nullable(),
  telegram: z.strictObject({
    /** sandbox: no bot token, outbound messages are recorded but not sent. */
    mode: z.enum(["live", "sandbox"]),
    username: z.string().nullable(),
    webhook: z.strictObject({ url: z.string(), pendingUpdates: z.number().int(), lastError: z.string().optional() }).optional(),
    /** Why the bot's identity or webhook could not be read. */
    error: z.string().optional(),
    /** Answer drafts (sendMessageDraft): "unsupported" once this Bot API server refused the method. */
    drafts: z.discriminatedUnion("state", [
      z.strictObject({ state: z.literal("on") }),
      z.strictObject({ state: z.literal("unsupported"), error: z.string() }),
    ]),
  }),
  line: z.strictObject({ enabled: z.boolean() }),
  /** Each bot's username by its channel adapter (`telegram`, `telegram-7`…; null where the platform gave none). */
  bots: z.record(z.string(), z.string().nullable()),
  database: z.enum(["sqlite", "postgresql"]),
});

/** The document itself (an OpenAPI 3.1 object). */
export const openApiResponse = z.looseObject({ openapi: z.string(), info: z.unknown(), paths: z.record(z.string(), z.unknown()) });

export const operations = defineOperations([
  {
    method: "get",
    path: "/status",
    summary: "The configured model (never its key), Telegram mode, bot username, webhook, LINE, database",
    response: { status: 200, schema: statusResponse },
  },
  { method: "get", path: "/openapi.json", summary: "This document", response: { status: 200, schema: openApiResponse } },
]);
