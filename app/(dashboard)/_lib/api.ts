"use client";

/** The dashboard's fetch: JSON in and out, CSRF header on mutations, errors as ApiError. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** A 4xx (not found, refused, forbidden) says the same the next time: not worth asking again. */
export const isClientError = (error: unknown) =>
  error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;

function csrfToken(): string {
  const match = document.cookie.match(/(?:^|;\s*)sb_csrf=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

export async function api<T>(path: string, init?: { method?: string; body?: unknown }): Promise<T> {
  const method = init?.method ?? "GET";
  // A form (a file upload) goes as multipart/form-data: the browser writes its type and boundary.
  const form = init?.body instanceof FormData ? init.body : null;
  const response = await fetch(`/api/v1${path}`, {
    method,
    headers: {
      ...(init?.body !== undefined && !form ? { "content-type": "application/json" } : {}),
      ...(method !== "GET" ? { "x-csrf-token": csrfToken() } : {}),
    },
    body: form ?? (init?.body !== undefined ? JSON.stringify(init.body) : undefined),
  });
  if (response.status === 401) {
    // Back to this page after signing in again (the login page accepts only this site's paths).
    const here = `${window.location.pathname}${window.location.search}`;
    window.location.href = here === "/" ? "/login" : `/login?next=${encodeURIComponent(here)}`;
    throw new ApiError("signed out", 401);
  }
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const issue = body?.error?.details?.[0];
    const message = issue
      ? `${issue.path?.join(".") ?? ""}: ${issue.message}`
      : (body?.error?.message ?? `request failed (${response.status})`);
    throw new ApiError(message, response.status, body?.error?.details);
  }
  return body as T;
}
