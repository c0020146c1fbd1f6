import { okResponse } from "@/lib/api/operators";
import { changeOwnPassword, passwordChangeBody } from "@/lib/auth/account";
import { withOperator } from "@/lib/server/with-operator";
import { clientKey } from "@/lib/http/cookies";
import { jsonOf, readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** { currentPassword, newPassword }: the caller's own password; their other sessions end. */
export const POST = withOperator(
  async ({ request, ctx, caller }) => {
    const input = await readJson(request, passwordChangeBody, 4096);
    await changeOwnPassword(ctx.db, caller, input, clientKey(request));
    return jsonOf(okResponse, { ok: true });
  },
  { role: "agent" },
);
