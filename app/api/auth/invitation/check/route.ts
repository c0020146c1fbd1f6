import { checkInvitation, checkInvitationSchema } from "@/lib/auth/invitations";
import { AppError } from "@/lib/errors";
import { withErrors } from "@/lib/server/with-operator";
import { clientKey, sameOrigin } from "@/lib/http/cookies";
import { readJson } from "@/lib/http/respond";

/**
 * Whether an invitation link still works ({ token }): 200, or the one 404 of an unknown,
 * used, withdrawn or expired link. A POST: the token stays out of URLs and logs.
 */
export const POST = withErrors(async ({ request, ctx }) => {
  if (!sameOrigin(request)) throw new AppError("forbidden", "cross-origin request refused");
  const { token } = await readJson(request, checkInvitationSchema, 1024);
  await checkInvitation(ctx.db, token, clientKey(request));
  return Response.json({ ok: true }, { headers: { "cache-control": "no-store" } });
});
