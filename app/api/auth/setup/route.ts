import { setupFirstOperator, setupSchema } from "@/lib/auth/operators";
import { AppError } from "@/lib/errors";
import { withErrors } from "@/lib/http/api";
import { sameOrigin } from "@/lib/http/cookies";
import { json, readJson } from "@/lib/http/respond";

/** First-run setup: creates the first operator while none exists. */
export const POST = withErrors(async ({ request, ctx }) => {
  if (!sameOrigin(request)) throw new AppError("forbidden", "cross-origin setup refused");
  await setupFirstOperator(ctx.db, await readJson(request, setupSchema, 16 * 1024), ctx.setupCode);
  return json({ ok: true }, 201);
});
