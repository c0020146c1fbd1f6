import { credentialsSchema, signIn } from "@/lib/auth/operators";
import { AppError } from "@/lib/errors";
import { withErrors } from "@/lib/server/with-operator";
import { clientKey, isSecure, sameOrigin, sessionCookies } from "@/lib/http/cookies";
import { readJson } from "@/lib/http/respond";

export const POST = withErrors(async ({ request, ctx }) => {
  if (!sameOrigin(request)) throw new AppError("forbidden", "cross-origin sign-in refused");
  const input = await readJson(request, credentialsSchema, 16 * 1024);
  const session = await signIn(ctx.db, input, clientKey(request), new Date(), request.headers.get("user-agent"));
  const headers = new Headers({ "cache-control": "no-store" });
  for (const cookie of sessionCookies(session, isSecure(request))) headers.append("set-cookie", cookie);
  return Response.json({ operator: session.operator }, { headers });
});
