import { z } from "zod";

/**
 * One operation of /api/v1 as the OpenAPI document describes it: the schemas
 * here are the ones the route validates its input with and types its response
 * by, so the document cannot say something the route does not do.
 * A new route is one entry in its resource's `operations` list (lib/api/<resource>.ts or lib/api/<resource>/schema.ts).
 */
export type Operation = {
  method: "get" | "post" | "patch" | "put" | "delete";
  /** The path under /api/v1, `{id}` where the route folder is `[id]` (a positive integer id). */
  path: string;
  summary: string;
  /** Query parameters: each key of the object is one parameter. */
  query?: z.ZodObject;
  /** The request body: JSON unless `bodyContentType` says otherwise. */
  body?: z.ZodType;
  /** A body that is not JSON (an upload: multipart/form-data, its fields described by `body`). */
  bodyContentType?: "multipart/form-data";
  /** The success response: its status and the schema of its JSON body (of each event's `data:` for a stream). */
  response: {
    status: 200 | 201;
    schema: z.ZodType;
    description?: string;
    contentType?: "application/json" | "text/event-stream" | "text/csv" | "application/octet-stream";
  };
  /** Errors beyond 400 (invalid input), 401 (no session or token) and, for paths with an id, 404: status → when. */
  errors?: Record<number, string>;
};

/** Keeps the literal types of an operation list while checking each entry. */
export const defineOperations = <const T extends readonly Operation[]>(operations: T) => operations;

/** A date as JSON carries it: `JSON.stringify` writes a Date as ISO 8601 text in UTC. */
export const isoDate = z.iso.datetime();

/**
 * A JSON column (Prisma `Json`): the server holds it as an untyped JSON value, the
 * client reads the shape its writer stored. The input side is `unknown`, so the
 * server's value type-checks; the output side (what the document and the
 * dashboard see, and what tests validate) is `schema`.
 */
export const storedJson = <T extends z.ZodType>(schema: T) => z.preprocess((value) => value, schema);

/** Every error body: `{ error: { code, message, details? } }` (lib/http/respond.ts). */
export const errorBody = z.strictObject({
  error: z.strictObject({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});

/**
 * What a server value may be for its JSON to match `W`: a Date where `W` has a
 * string (JSON.stringify writes it as ISO text), the rest recursively the same.
 * Type-only: responses are not validated at run time (tests do that).
 */
export type JsonInput<W> = W extends string
  ? string | Date
  : W extends readonly (infer U)[]
    ? readonly JsonInput<U>[]
    : W extends object
      ? { [K in keyof W]: JsonInput<W[K]> }
      : W;

/** The server-side type a response schema accepts (see JsonInput). */
export type ResponseInput<S extends z.ZodType> = JsonInput<z.input<S>>;
