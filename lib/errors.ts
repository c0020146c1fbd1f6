/**
 * One error type for everything the API can refuse. The code decides the HTTP
 * status in one table; `lib/http/respond.ts` turns it into a Response.
 */
export const errorStatus = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  bad_gateway: 502,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** A brand shared by every copy of this module (see AppError[Symbol.hasInstance]). */
const APP_ERROR = Symbol.for("switchboard.AppError");

export class AppError extends Error {
  /**
   * `instanceof` by brand, not by class identity: the Next build bundles lib/ once for
   * the instrumentation (the app's wiring) and again for each route handler, so an
   * AppError thrown by the wired app (a live-stream cap) failed the route's check and
   * was answered 500 instead of its status.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[APP_ERROR] === true;
  }

  readonly [APP_ERROR] = true;
  readonly code: ErrorCode;
  /** Safe to show to the caller (e.g. zod issues). Never include secrets. */
  readonly details?: unknown;
  /** When trying again makes sense, and after how long: sent as Retry-After. */
  readonly retryAfterSeconds?: number;

  constructor(code: ErrorCode, message: string, details?: unknown, options?: { retryAfterSeconds?: number }) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.details = details;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

export const notFound = (what: string) => new AppError("not_found", `${what} not found`);
