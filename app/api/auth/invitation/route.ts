import { acceptInvitation, acceptInvitationSchema } from "@/lib/auth/invitations";
import { AppError } from "@/lib/errors";
import { withErrors } from "@/lib/server/with-operator";
import { clientKey, isSecure, sameOrigin, sessionCookies } from "@/lib/http/cookies";
import { readJson } from "@/lib/http/respond";

/**
 * Accepts an invitation: { token, name, displayName?, password } creates the
 * operator with the invitation's role and signs them in (the same cookies as
 * /api/auth/login).
 */
export const POST = withErrors(async ({ request, ctx }) => {
  if (!sameOrigin(request)) throw new AppError("forbidden", "cross-origin request refused");
  const input = await readJson(request, acceptInvitationSchema, 16 * 1024);
  const session = await acceptInvitation(ctx.db, input, clientKey(request), new Date(), request.headers.get("user-agent"));
  const headers = new Headers({ "cache-control": "no-store" });
  for (const cookie of sessionCookies(session, isSecure(request))) headers.append("set-cookie", cookie);
  return Response.json({ ok: true, operator: session.operator }, { status: 201, headers });
});
