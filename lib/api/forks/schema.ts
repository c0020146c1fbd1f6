import { z } from "zod";
import { exitStrategySchema, startTaskSchema } from "../../pipeline/forks";
import { envelopeRow } from "../envelopes/schema";
import { defineOperations, isoDate } from "../operation";
import { recordIdParam } from "../../record-id";

/** A fork, every column (the Fork table). */
export const forkRow = z.strictObject({
  id: z.number().int(),
  conversationId: z.number().int(),
  kind: z.enum(["background", "interactive"]),
  status: z.enum(["running", "done", "failed", "active", "exited", "expired"]),
  parentForkId: z.number().int().nullable(),
  startedBy: z.string().nullable(),
  title: z.string().nullable(),
  exitStrategy: z.string().nullable(),
  summary: z.string().nullable(),
  idleWarnings: z.number().int(),
  baseMessageId: z.number().int().nullable(),
  startedAt: isoDate,
  lastActivityAt: isoDate,
  endedAt: isoDate.nullable(),
});

export const forkListItem = forkRow.extend({
  _count: z.strictObject({ messages: z.number().int() }),
  conversation: z.strictObject({
    id: z.number().int(),
    title: z.string().nullable(),
    platformChatId: z.string(),
    activeForkId: z.number().int().nullable(),
  }),
});

export const forkListQuery = z.object({
  conversationId: recordIdParam.optional(),
  take: z.coerce.number().int().min(1).max(500).default(100),
});
export const forkListResponse = z.strictObject({ forks: z.array(forkListItem) });
export const forkResponse = z.strictObject({ fork: forkRow });
export const startedTaskResponse = z.strictObject({ fork: forkRow, envelope: envelopeRow });

export { exitStrategySchema, startTaskSchema };

export const operations = defineOperations([
  {
    method: "get",
    path: "/forks",
    summary: "Forks, newest first",
    query: forkListQuery,
    response: { status: 200, schema: forkListResponse },
  },
  {
    method: "post",
    path: "/forks",
    summary: "Run a task in the background (a background fork)",
    body: startTaskSchema,
    response: { status: 201, schema: startedTaskResponse },
    errors: { 404: "Unknown conversation", 409: "No model configured" },
  },
  {
    method: "post",
    path: "/forks/{id}/resume",
    summary: "Make the fork the conversation's active interactive fork",
    response: { status: 200, schema: forkResponse },
    errors: { 409: "Another fork is active" },
  },
  {
    method: "post",
    path: "/forks/{id}/exit",
    summary: "Leave an interactive fork: discard, save (its messages join the main session) or report (a summary does)",
    body: exitStrategySchema,
    response: { status: 200, schema: forkResponse },
    errors: { 409: "Not an active interactive fork" },
  },
]);
