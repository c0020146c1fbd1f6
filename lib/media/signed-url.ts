import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signed, expiring links to one stored file, for a platform that fetches media
 * itself (LINE's image, video and audio messages take an HTTPS URL, not bytes).
 * The link names the blob by its sha256 and carries an expiry and an HMAC-SHA256
 * of both under a server secret: it serves exactly that file (or its preview) and
 * nothing else, and stops working when it expires. LINE fetches the file when a
 * user opens the message, not at send time, so the link lives a day.
 */
export const SIGNED_MEDIA_TTL_MS = 24 * 3600 * 1000;

/** What a link serves: the file itself, or a small JPEG/PNG preview (LINE's previewImageUrl). */
export type SignedVariant = "original" | "preview";

/** The route under which signed links are served (outside /api/v1: the platform has no session). */
export const SIGNED_MEDIA_PATH = "/api/media";

function signature(secret: string, sha256: string, variant: SignedVariant, expires: number): string {
  return createHmac("sha256", secret).update(`${sha256}\n${variant}\n${expires}`).digest("base64url");
}

/** A link to `sha256`'s bytes under `publicUrl`, valid until `now + ttlMs`. */
export function signedMediaUrl(
  publicUrl: string,
  secret: string,
  sha256: string,
  variant: SignedVariant,
  now = Date.now(),
  ttlMs = SIGNED_MEDIA_TTL_MS,
): string {
  const expires = Math.floor((now + ttlMs) / 1000);
  const url = new URL(`${SIGNED_MEDIA_PATH}/${sha256}`, publicUrl.endsWith("/") ? publicUrl : `${publicUrl}/`);
  // The path is absolute: a PUBLIC_URL with a path prefix keeps it.
  url.pathname = `${new URL(publicUrl).pathname.replace(/\/$/, "")}${SIGNED_MEDIA_PATH}/${sha256}`;
  url.searchParams.set("v", variant);
  url.searchParams.set("exp", String(expires));
  url.searchParams.set("sig", signature(secret, sha256, variant, expires));
  return url.toString();
}

/** Why a signed link is refused, or null when it is good. */
export function checkSignedMedia(
  secret: string,
  input: { sha256: string; variant: string | null; expires: string | null; sig: string | null },
  now = Date.now(),
): { ok: true; variant: SignedVariant } | { ok: false; reason: "forged" | "expired" } {
  const variant = input.variant === "preview" ? "preview" : input.variant === "original" ? "original" : null;
  const expires = Number(input.expires);
  if (!variant || !/^[0-9a-f]{64}$/.test(input.sha256) || !Number.isSafeInteger(expires) || !input.sig)
    return { ok: false, reason: "forged" };
  const expected = Buffer.from(signature(secret, input.sha256, variant, expires));
  const given = Buffer.from(input.sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: "forged" };
  if (expires * 1000 < now) return { ok: false, reason: "expired" };
  return { ok: true, variant };
}
