/**
 * Network errors that mean the request never reached the platform (no connection
 * was made): a send that failed so was certainly not delivered and may go again.
 * Any other network failure (a timeout, a connection cut after the request was
 * written) may come after the message went out: its outcome is unknown.
 */
const NEVER_CONNECTED = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/** The system error code of a failed request (Node's fetch puts it on the error's cause), if any. */
export function networkCodeOf(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = typeof e?.code === "string" ? e.code : e?.cause?.code;
  return typeof code === "string" ? code : undefined;
}

export const neverConnected = (code: string | undefined) => code !== undefined && NEVER_CONNECTED.has(code);
