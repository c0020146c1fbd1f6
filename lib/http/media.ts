import { cleanFileName } from "../media/file-name";
import type { ServedFile } from "../media/serve";

/**
 * `filename*` (RFC 6266 / 5987) with an ASCII fallback: a name can never break the header, nor show
 * another extension. Null when nothing of the name is left.
 */
function dispositionName(given: string): string | null {
  // Cleaned as at intake, so names stored before it was done lose the same characters. Cut by code
  // point: half of an emoji (a lone surrogate) would make encodeURIComponent throw.
  const name = [...cleanFileName(given)].slice(0, 150).join("");
  if (!name) return null;
  const ascii = name.replace(/[^\x20-\x7e]|["\\;]/g, "_");
  // RFC 5987's attr-char has no ' ( ) *, which encodeURIComponent leaves as they are.
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * A stored file as an HTTP response: the sniffed type (a neutral one for what is
 * not shown inline), `nosniff` so the browser never guesses another, `attachment`
 * for anything that is not a raster image, audio or video, and a sandboxing
 * policy in case a browser renders it anyway. Content-addressed, so it never
 * changes: cached privately and answered 304 on a matching If-None-Match.
 */
export function fileResponse(file: ServedFile, request: Request, cache: "private" | "none" = "private"): Response {
  const name = file.fileName ? dispositionName(file.fileName) : null;
  const headers: Record<string, string> = {
    "content-type": file.contentType,
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; sandbox",
    "cross-origin-resource-policy": "same-origin",
    "content-disposition": `${file.inline ? "inline" : "attachment"}${name ? `; ${name}` : ""}`,
    etag: file.etag,
    "cache-control": cache === "private" ? "private, max-age=31536000, immutable" : "no-store",
  };
  if (
    cache === "private" &&
    request.headers
      .get("if-none-match")
      ?.split(/\s*,\s*/)
      .includes(file.etag)
  )
    return withoutBody(file, new Response(null, { status: 304, headers }));
  headers["content-length"] = String(file.sizeBytes);
  if (request.method === "HEAD") return withoutBody(file, new Response(null, { status: 200, headers }));
  if (!(file.body instanceof ReadableStream)) return new Response(new Uint8Array(file.body), { status: 200, headers });
  const response = new Response(file.body, { status: 200, headers });
  cancelIfClientLeaves(file.body, request.signal);
  return response;
}

/**
 * A client that goes away before the body is piped (Next returns without reading a body
 * whose connection already closed) would leave the stream, and the file it holds open on
 * SQLite, to the garbage collector. Once piping has begun (the stream is locked) Next
 * cancels it itself on a disconnect.
 */
function cancelIfClientLeaves(body: ReadableStream<Uint8Array>, signal: AbortSignal) {
  const cancel = () => {
    if (!body.locked) body.cancel().catch(() => {});
  };
  if (signal.aborted) cancel();
  else signal.addEventListener("abort", cancel, { once: true });
}

/** An answer that sends no bytes lets go of the file it had opened (a stream holds a file on SQLite). */
function withoutBody(file: ServedFile, response: Response): Response {
  if (file.body instanceof ReadableStream) file.body.cancel().catch(() => {});
  return response;
}
