import { z } from "zod";
import type { ResponseInput } from "../api/operation";
import { AppError } from "../errors";
import { log } from "../log";
import { BodyPace, type MinimumRate } from "./body-pace";
import { checkJsonInput } from "./input-checks";
import { recordIdParam } from "../record-id";

/** JSON response with no caching: API data is per operator and changes often. */
export function json(body: unknown, status = 200, headers?: HeadersInit): Response {
  return Response.json(body, { status, headers: { "cache-control": "no-store", ...headers } });
}

/**
 * A JSON response whose body is typed by its schema in lib/api (the one the
 * OpenAPI document shows). Checked by the compiler only: tests validate real
 * responses against the schema, the hot path does not.
 */
export function jsonOf<S extends z.ZodType>(_schema: S, body: ResponseInput<S>, status = 200, headers?: HeadersInit): Response {
  return json(body, status, headers);
}

/** The one place an error becomes a Response. Unknown errors are logged, not shown. */
export function errorResponse(error: unknown): Response {
  if (error instanceof AppError) {
    const headers = error.retryAfterSeconds === undefined ? undefined : { "retry-after": String(error.retryAfterSeconds) };
    return json({ error: { code: error.code, message: error.message, details: error.details } }, error.status, headers);
  }
  if (error instanceof z.ZodError) {
    return json({ error: { code: "bad_request", message: "invalid request", details: error.issues } }, 400);
  }
  log.error("api.unhandled", { error });
  return json({ error: { code: "internal", message: "internal error" } }, 500);
}

/** JSON.parse that answers malformed input with a 400. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("bad_request", "body is not valid JSON");
  }
}

/** True for application/json and its +json relatives, with or without parameters. */
export function isJsonType(header: string | null): boolean {
  const type = (header ?? "").split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/**
 * Reads a JSON body and validates it: another content type is 415 (a text/plain
 * body is what a cross-site form can send without a preflight), malformed JSON and
 * invalid shapes are 400.
 */
export async function readJson<T>(request: Request, schema: z.ZodType<T>, maxBytes = 1 << 20): Promise<T> {
  if (!isJsonType(request.headers.get("content-type"))) throw new AppError("unsupported_media_type", "send the body as application/json");
  const value = parseJson(await readBody(request, maxBytes));
  checkJsonInput(value);
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new AppError("bad_request", "invalid request body", parsed.error.issues);
  return parsed.data;
}

/** Reads the body as text (UTF-8), refusing more than `maxBytes` (413). */
export async function readBody(request: Request, maxBytes: number): Promise<string> {
  return new TextDecoder("utf-8", { fatal: false }).decode(await readRawBody(request, maxBytes));
}

/** A body read waits at most this long for its next bytes. */
export const BODY_IDLE_MS = 30_000;

/**
 * Reads the body's bytes (for signatures computed over them), refusing more than
 * `maxBytes` (413) without buffering it all. A body that breaks off (the client went
 * away mid-upload) is the client's doing, not a fault of ours: a 400 nobody will read,
 * logged at info. One that stops arriving for `idleMs` is a 408, and so is one slower
 * than `minRate` (an upload: a byte every few seconds never looks idle, and would hold
 * its place until Node's 300 s request timeout); the server closes that connection
 * once the 408 is sent (lib/http/close-stalled.mjs).
 */
export async function readRawBody(request: Request, maxBytes: number, idleMs = BODY_IDLE_MS, minRate?: MinimumRate): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new AppError("payload_too_large", `body exceeds ${maxBytes} bytes`);
  if (!request.body) return Buffer.alloc(0);
  const path = new URL(request.url).pathname;
  const reader = request.body.getReader();
  const pace = minRate ? new BodyPace(minRate, Date.now()) : null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  let lastBytesAt = Date.now();
  // A read outlives a look at the pace: the same read is waited for again.
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | null = null;
  const refuse = (event: string, fields: Record<string, unknown>, message: string) => {
    // Else a client that stops sending (or barely sends) would hold what the handler holds (an upload's slot).
    pending?.catch(() => {});
    reader.cancel().catch(() => {});
    log.info(event, { path, bytesRead: size, ...fields });
    return new AppError("request_timeout", message);
  };
  for (;;) {
    pending ??= reader.read();
    const wake = Math.min(lastBytesAt + idleMs, pace?.checkAt ?? Number.POSITIVE_INFINITY);
    let read: ReadableStreamReadResult<Uint8Array> | "look";
    let timer: NodeJS.Timeout | undefined;
    try {
      read = await Promise.race([
        pending,
        new Promise<"look">((resolve) => {
          timer = setTimeout(() => resolve("look"), Math.max(0, wake - Date.now()));
        }),
      ]);
    } catch (error) {
      log.info("http.body_aborted", { path, bytesRead: size, error });
      throw new AppError("bad_request", "the request body ended early (the client went away)");
    } finally {
      clearTimeout(timer);
    }
    const now = Date.now();
    if (read !== "look") {
      pending = null;
      if (read.done) break;
      size += read.value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw new AppError("payload_too_large", `body exceeds ${maxBytes} bytes`);
      }
      chunks.push(read.value);
      pace?.add(read.value.byteLength);
      lastBytesAt = now;
    } else if (now >= lastBytesAt + idleMs)
      throw refuse("http.body_stalled", { idleMs }, `the request body stalled: no bytes for ${Math.round(idleMs / 1000)} s`);
    if (pace && minRate && !pace.keepsPace(now))
      throw refuse(
        "http.body_too_slow",
        { minBytesPerSecond: minRate.bytesPerSecond },
        `the upload is slower than the minimum of ${kilobytesPerSecond(minRate.bytesPerSecond)}: send it again over a faster connection`,
      );
  }
  return Buffer.concat(chunks);
}

const kilobytesPerSecond = (bytesPerSecond: number) => `${(bytesPerSecond / 1024).toLocaleString("en", { maximumFractionDigits: 1 })} KB/s`;

/** A positive integer id from a route segment; anything else is a 400 with the zod issue. */
export const idParam = (value: string | string[] | undefined) => recordIdParam.parse(value);
