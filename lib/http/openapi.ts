import { z } from "zod";
import { errorBody, type Operation } from "../api/operation";
import { operations as allOperations } from "../api/operations";

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect): requests as callers write them, responses as the server writes them. */
function jsonSchema(schema: z.ZodType, io: "input" | "output") {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any", override: quieter }) as Record<
    string,
    unknown
  >;
  return rest;
}

/** Drops what says nothing to a reader: the ISO pattern next to format date-time, safe-integer bounds on every id. */
function quieter({ jsonSchema }: { jsonSchema: Record<string, unknown> }) {
  if (jsonSchema.format === "date-time") delete jsonSchema.pattern;
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
}

const jsonContent = (schema: Record<string, unknown>) => ({ "application/json": { schema } });
const errorRef = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

function pathParameters(path: string) {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "integer", minimum: 1 },
  }));
}

function queryParameters(query: z.ZodObject | undefined) {
  if (!query) return [];
  const { properties = {}, required = [] } = jsonSchema(query, "input") as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(properties).map(([name, schema]) => ({ name, in: "query", required: required.includes(name), schema }));
}

function operationObject(op: Operation) {
  const parameters = [...pathParameters(op.path), ...queryParameters(op.query)];
  const errors: Record<number, string> = {
    400: "Invalid input; `error.details` holds the zod issues",
    401: "No valid session or API token",
    ...(op.path.includes("{") ? ({ 404: "Unknown id" } as Record<number, string>) : {}),
    ...op.errors,
  };
  return {
    summary: op.summary,
    ...(parameters.length ? { parameters } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: op.bodyContentType
              ? { [op.bodyContentType]: { schema: jsonSchema(op.body, "input") } }
              : jsonContent(jsonSchema(op.body, "input")),
          },
        }
      : {}),
    responses: {
      [op.response.status]: {
        description: op.response.description ?? "OK",
        content: { [op.response.contentType ?? "application/json"]: { schema: jsonSchema(op.response.schema, "output") } },
      },
      ...Object.fromEntries(Object.entries(errors).map(([status, description]) => [status, errorRef(description)])),
    },
  };
}

/** The OpenAPI 3.1 description of /api/v1, served at /api/v1/openapi.json: built from the schemas the routes use (lib/api). */
export function openApiDocument(operations: readonly Operation[] = allOperations) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    paths[op.path] ??= {};
    if (paths[op.path][op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is registered twice`);
    paths[op.path][op.method] = operationObject(op);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Switchboard API",
      version: "1",
      description:
        "Operator console API. Authenticate with an operator session cookie (plus x-csrf-token on mutations) or Authorization: Bearer <SWITCHBOARD_API_TOKEN>. " +
        "Request bodies are application/json (else 415). Errors are { error: { code, message, details? } }. " +
        "Platforms deliver outside /api/v1: POST /api/webhooks/telegram and /api/webhooks/line (the bots configured by the environment), " +
        "POST /api/webhooks/telegram/{botId} and /api/webhooks/line/{botId} (bots added with POST /bots, each with its own secret; 404 when unknown, disabled or removed).",
    },
    servers: [{ url: "/api/v1" }],
    security: [{ bearer: [] }, { session: [] }],
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer" },
        session: { type: "apiKey", in: "cookie", name: "sb_session" },
      },
      schemas: { Error: jsonSchema(errorBody, "output") },
    },
    paths,
  };
}
