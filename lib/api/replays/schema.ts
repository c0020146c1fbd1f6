import { recordId, recordIdParam } from "../../record-id";
import { z } from "zod";
import { replayMode, replayRequestSchema, variantSettingsSchema } from "../../replay/variant";
import { settingsValues } from "../settings/schema";
import { defineOperations, isoDate, storedJson } from "../operation";

const toolCall = z.looseObject({ tool: z.literal("handoff").optional(), message: z.string(), outcome: z.unknown() });

/** What a replay's model did: `reply` captured as the answer, `handoff` as the decision; nothing was sent. */
const replayOutput = z.strictObject({
  replied: z.boolean(),
  text: z.string().nullable(),
  handoff: z.string().nullable(),
  toolCalls: z.array(toolCall),
});

/** A variant as stored and shown: never its API key (`apiKeyGiven` says one was used). */
const storedVariant = z.looseObject({
  instructions: z.string().optional(),
  model: z
    .strictObject({ provider: z.string(), model: z.string(), baseUrl: z.string().optional(), apiKeyGiven: z.boolean().optional() })
    .optional(),
  settings: variantSettingsSchema.optional(),
});

const status = z.enum(["running", "done", "failed"]);

export const replayView = z.strictObject({
  id: z.number().int(),
  turnId: z.number().int(),
  /** The dataset run it belongs to; null for a single replay. */
  runId: z.number().int().nullable(),
  mode: replayMode,
  variant: storedJson(storedVariant),
  status,
  error: z.string().nullable(),
  /** "provider:model" it ran with. */
  model: z.string().nullable(),
  prompt: z.strictObject({ system: z.string(), messages: z.array(z.looseObject({ role: z.string(), content: z.unknown() })) }),
  output: storedJson(replayOutput.nullable()),
  usage: storedJson(z.record(z.string(), z.unknown()).nullable()),
  latencyMs: z.number().int().nullable(),
  inputTokens: z.number().int().nullable(),
  outputTokens: z.number().int().nullable(),
  /** US dollars at the price table's prices; null when the model has no price. */
  costUsd: z.number().nullable(),
  createdAt: isoDate,
  /** The replay against the original turn: its prompt line by line, and whether the answer changed. */
  diff: z.strictObject({
    prompt: z.array(z.strictObject({ op: z.enum(["same", "added", "removed"]), text: z.string() })),
    answerChanged: z.boolean(),
  }),
});

export const replayResponse = z.strictObject({ replay: replayView });
export const replayListResponse = z.strictObject({ replays: z.array(replayView) });

export { replayRequestSchema };

export const datasetCreateBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    turnIds: z.array(recordId).max(500).optional(),
    /** Every turn of this conversation (the newest 500). */
    conversationId: recordId.optional(),
    /** The turns behind these messages (a search's results): the turn that answered a user's message, or that wrote the agent's. */
    messageIds: z.array(recordId).max(500).optional(),
  })
  .refine((b) => b.turnIds?.length || b.conversationId !== undefined || b.messageIds?.length, {
    message: "give turnIds, a conversationId or messageIds",
    path: ["turnIds"],
  });

const runRow = z.strictObject({
  id: z.number().int(),
  datasetId: z.number().int(),
  mode: replayMode,
  variant: storedJson(storedVariant),
  status,
  total: z.number().int(),
  error: z.string().nullable(),
  createdBy: z.string(),
  createdAt: isoDate,
  finishedAt: isoDate.nullable(),
});

const dataset = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  turnIds: storedJson(z.array(z.number().int())),
  createdBy: z.string(),
  createdAt: isoDate,
});

export const datasetResponse = z.strictObject({ dataset });
export const datasetListResponse = z.strictObject({ datasets: z.array(dataset.extend({ runs: z.array(runRow) })) });
export const runResponse = z.strictObject({ run: runRow });

const summary = z.strictObject({
  total: z.number().int(),
  done: z.number().int(),
  failed: z.number().int(),
  running: z.number().int(),
  /** Answers whose text changed, went silent or started replying, or whose handoff changed. */
  changed: z.number().int(),
  becameSilent: z.number().int(),
  startedReplying: z.number().int(),
  startedHandingOff: z.number().int(),
  stoppedHandingOff: z.number().int(),
  tokens: z.strictObject({
    replay: z.strictObject({ input: z.number().int(), output: z.number().int() }),
    original: z.strictObject({ input: z.number().int(), output: z.number().int() }),
  }),
  latencyMs: z.strictObject({ replayAverage: z.number().int().nullable(), originalAverage: z.number().int().nullable() }),
  costUsd: z.strictObject({ replay: z.number(), original: z.number() }),
});

const answer = z.strictObject({ replied: z.boolean(), text: z.string().nullable(), handoff: z.string().nullable() });

export const runReportResponse = z.strictObject({
  run: runRow,
  summary,
  results: z.array(
    z.strictObject({
      replayId: z.number().int(),
      turnId: z.number().int(),
      status,
      error: z.string().nullable(),
      original: answer,
      output: storedJson(replayOutput.nullable()),
      answerChanged: z.boolean(),
      inputTokens: z.number().int().nullable(),
      outputTokens: z.number().int().nullable(),
      latencyMs: z.number().int().nullable(),
      originalLatencyMs: z.number().int().nullable(),
      costUsd: z.number().nullable(),
    }),
  ),
  /** With `compareTo`: the other run beside this one, turn by turn. */
  comparison: z
    .strictObject({
      runId: z.number().int(),
      mode: replayMode,
      variant: storedJson(storedVariant),
      summary,
      turns: z.array(
        z.strictObject({
          turnId: z.number().int(),
          this: storedJson(replayOutput.nullable()),
          other: storedJson(replayOutput.nullable()),
          differ: z.boolean(),
        }),
      ),
    })
    .nullable(),
});

export const runReportQuery = z.strictObject({ compareTo: recordIdParam.optional() });

export const applyResponse = z.strictObject({
  settings: settingsValues,
  /** The settings keys written (each with its change-log entry). */
  applied: z.array(z.string()),
  /** What of the variant cannot be applied as a setting (`model`: the server's model is set by its environment). */
  notApplied: z.array(z.string()),
  /** Keys the replayed turns' bot overrides, written to that bot (where they take effect); null when none. */
  bot: z.strictObject({ id: z.number().int(), name: z.string(), applied: z.array(z.string()) }).nullable(),
});

const replayErrors = {
  409: "The turn's recorded model is no longer configured (choose one in the variant), or a rebuild of a turn with no stored message",
};

export const operations = defineOperations([
  {
    method: "post",
    path: "/turns/{id}/replays",
    summary: "Replay one turn with a variant (instructions, model, context settings); nothing reaches a platform, the history or the queue",
    body: replayRequestSchema,
    response: { status: 201, schema: replayResponse },
    errors: { ...replayErrors, 403: "A variant with its own model (base URL, API key) needs an admin" },
  },
  {
    method: "get",
    path: "/turns/{id}/replays",
    summary: "A turn's replays, newest first (50)",
    response: { status: 200, schema: replayListResponse },
  },
  {
    method: "get",
    path: "/replays/{id}",
    summary: "One replay: its prompt, answer, usage and latency, and its diff against the original turn",
    response: { status: 200, schema: replayResponse },
  },
  {
    method: "delete",
    path: "/replays/{id}",
    summary: "Delete a replay (replays are kept until deleted, or until their conversation is)",
    response: { status: 200, schema: z.strictObject({ ok: z.literal(true) }) },
  },
  {
    method: "post",
    path: "/replays/{id}/apply",
    summary: "Apply a replay's variant to the settings (with change-log entries); admins only",
    response: { status: 200, schema: applyResponse },
    errors: { 403: "Not an admin" },
  },
  {
    method: "get",
    path: "/datasets",
    summary: "Datasets of turns to replay together, with their newest runs",
    response: { status: 200, schema: datasetListResponse },
  },
  {
    method: "post",
    path: "/datasets",
    summary: "A dataset from turn ids or a conversation's turns; unknown turns are a 404",
    body: datasetCreateBody,
    response: { status: 201, schema: datasetResponse },
  },
  {
    method: "delete",
    path: "/datasets/{id}",
    summary: "Delete a dataset with its runs and their replays",
    response: { status: 200, schema: z.strictObject({ ok: z.literal(true) }) },
  },
  {
    method: "post",
    path: "/datasets/{id}/runs",
    summary: "Replay every turn of a dataset under one variant, in the background, a few at a time; follow it with GET …/runs/{runId}",
    body: replayRequestSchema,
    response: { status: 201, schema: runResponse },
    errors: { ...replayErrors, 403: "A variant with its own model (base URL, API key) needs an admin" },
  },
  {
    method: "get",
    path: "/datasets/{id}/runs/{runId}",
    summary: "A run's progress, per-turn results and summary against the originals; `compareTo` puts another run of the dataset beside it",
    query: runReportQuery,
    response: { status: 200, schema: runReportResponse },
  },
  {
    method: "post",
    path: "/datasets/{id}/runs/{runId}/apply",
    summary: "Apply a run's variant to the settings (with change-log entries); admins only",
    response: { status: 200, schema: applyResponse },
    errors: { 403: "Not an admin" },
  },
]);
