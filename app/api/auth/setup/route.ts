import { setupFirstOperator, setupRequestSchema, signIn } from "@/lib/auth/operators";
import { AppError } from "@/lib/errors";
import { withErrors } from "@/lib/server/with-operator";
import { clientKey, isSecure, sameOrigin, sessionCookies } from "@/lib/http/cookies";
import { readJson } from "@/lib/http/respond";

/**
 * First-run setup: creates the first operator while none exists, then signs
 * them in (the same path as /api/auth/login), so the console opens at once.
 */
export const POST = withErrors(async ({ request, ctx }) => {
  if (!sameOrigin(request)) throw new AppError("forbidden", "cross-origin setup refused");
  const input = await setupFirstOperator(ctx.db, await readJson(request, setupRequestSchema, 16 * 1024), ctx.setupCode);
  const session = await signIn(
    ctx.db,
    { name: input.name, password: input.password },
    clientKey(request),
    new Date(),
    request.headers.get("user-agent"),
  );
  const headers = new Headers({ "cache-control": "no-store" });
  for (const cookie of sessionCookies(session, isSecure(request))) headers.append("set-cookie", cookie);
  return Response.json({ ok: true, operator: session.operator }, { status: 201, headers });
});
