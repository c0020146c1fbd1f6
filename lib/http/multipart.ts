import { AppError } from "../errors";
import { cleanFileName } from "../media/file-name";
import type { MinimumRate } from "./body-pace";
import { BODY_IDLE_MS, readRawBody } from "./respond";
import type { UploadSlots } from "./upload-slots";

/** Room for the form's boundaries, headers and small fields around the file. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

/** An uploaded file: its bytes and what the client called it (a claim only: the bytes decide). */
export type UploadedFile = { bytes: Uint8Array; name: string; declaredType: string };

/** An upload's form: the file and the other fields (text only). */
export type UploadForm = { file: UploadedFile; fields: Record<string, string> };

/**
 * Handles one upload in one of `slots` (lib/http/upload-slots.ts), held from the
 * first byte read until `handle` is done with the file: what the headers alone
 * refuse (another type, a Content-Length over the limit) is refused first, then a
 * full set of slots is a 503, and only then is the body read (`readUploadForm`).
 */
export async function withUploadForm<T>(
  request: Request,
  /** `holder`: who uploads (an operator's id), for the slots' share per account. */
  options: { maxFileBytes: number; slots: UploadSlots; holder: string },
  handle: (form: UploadForm) => Promise<T>,
): Promise<T> {
  const type = refuseByHeaders(request, options.maxFileBytes);
  return options.slots.run(
    async () => handle(await readUploadForm(request, type, options.maxFileBytes, options.slots.minRate)),
    options.holder,
  );
}

/**
 * 415 for another type than multipart/form-data (a cross-site form could post one
 * without a preflight only with the CSRF header missing, which authentication
 * already refused); 413 for a declared length over the limit, before any byte is read.
 * Else the form's content type, boundary included.
 */
function refuseByHeaders(request: Request, maxFileBytes: number): string {
  const type = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(type)) throw new AppError("unsupported_media_type", "send the file as multipart/form-data");
  if (Number(request.headers.get("content-length") ?? "0") > maxFileBytes + FORM_OVERHEAD_BYTES) throw tooLarge(maxFileBytes);
  return type;
}

const tooLarge = (maxFileBytes: number) =>
  new AppError("payload_too_large", `the file is larger than the limit of ${megabytes(maxFileBytes)}`);

/**
 * Reads a multipart/form-data body of at most `maxFileBytes` plus the form's own
 * overhead (413 beyond, without reading the rest) at `minRate` at least (408 below it),
 * then parses it; a malformed form is 400.
 */
async function readUploadForm(request: Request, type: string, maxFileBytes: number, minRate: MinimumRate | null): Promise<UploadForm> {
  let raw: Buffer;
  try {
    raw = await readRawBody(request, maxFileBytes + FORM_OVERHEAD_BYTES, BODY_IDLE_MS, minRate ?? undefined);
  } catch (error) {
    if (error instanceof AppError && error.code === "payload_too_large") throw tooLarge(maxFileBytes);
    throw error;
  }
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(raw), { headers: { "content-type": type } }).formData();
  } catch {
    throw new AppError("bad_request", "the form could not be read (malformed multipart/form-data)");
  }
  const file = form.get("file");
  if (!(file instanceof Blob)) throw new AppError("bad_request", "add the file as the form field `file`");
  const fields: Record<string, string> = {};
  for (const [name, value] of form.entries()) if (typeof value === "string") fields[name] = value;
  // As for JSON bodies (lib/http/input-checks.ts): PostgreSQL refuses NUL in text, and it means nothing here.
  if (Object.values(fields).some((value) => value.includes("\u0000")))
    throw new AppError("bad_request", "text may not contain the NUL character");
  return { file: { bytes: new Uint8Array(await file.arrayBuffer()), name: fileNameOf(file), declaredType: file.type }, fields };
}

/** The file's own name (never a path), cleaned (`cleanFileName`), at most 200 characters; "file" when none is left. */
function fileNameOf(file: Blob): string {
  const given = "name" in file && typeof file.name === "string" ? file.name : "";
  const base = given.split(/[\\/]/).pop() ?? "";
  return [...cleanFileName(base)].slice(0, 200).join("").trim() || "file";
}

export function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toLocaleString("en", { maximumFractionDigits: 1 })} MB`;
}
