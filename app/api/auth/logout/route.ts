import { SESSION_COOKIE, readCookie, signOut } from "@/lib/auth/operators";
import { AppError } from "@/lib/errors";
import { withErrors } from "@/lib/server/with-operator";
import { clearedCookies, sameOrigin } from "@/lib/http/cookies";

export const POST = withErrors(async ({ request, ctx }) => {
  if (!sameOrigin(request)) throw new AppError("forbidden", "cross-origin sign-out refused");
  const ended = await signOut(ctx.db, readCookie(request.headers.get("cookie"), SESSION_COOKIE));
  if (ended !== null) ctx.liveStreams.endSession(ended);
  const headers = new Headers({ "cache-control": "no-store" });
  for (const cookie of clearedCookies()) headers.append("set-cookie", cookie);
  return Response.json({ ok: true }, { headers });
});
