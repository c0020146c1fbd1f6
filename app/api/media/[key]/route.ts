import { AppError } from "@/lib/errors";
import { withErrors } from "@/lib/server/with-operator";
import { fileResponse } from "@/lib/http/media";
import { serveSigned } from "@/lib/media/serve";
import { checkSignedMedia } from "@/lib/media/signed-url";

export const dynamic = "force-dynamic";

/**
 * A signed, expiring link to one stored file, for a platform that fetches media
 * itself (LINE). No session: the signature is the permission, and it names exactly
 * one file. Forged or expired: 403.
 */
export const GET = withErrors<{ key: string }>(async ({ request, params, ctx }) => {
  const query = new URL(request.url).searchParams;
  const check = checkSignedMedia(ctx.mediaUrlSecret, {
    sha256: params.key,
    variant: query.get("v"),
    expires: query.get("exp"),
    sig: query.get("sig"),
  });
  if (!check.ok) throw new AppError("forbidden", check.reason === "expired" ? "this link has expired" : "invalid link");
  const read = await serveSigned(ctx.db, params.key, check.variant);
  if (!read.ok) throw new AppError("not_found", "no such file");
  return fileResponse(read.file, request, "none");
});
