import { invitationBody, invitationResponse, operatorsResponse } from "@/lib/api/operators";
import { inviteOperator } from "@/lib/auth/invitations";
import { listTeam } from "@/lib/auth/team";
import { withOperator } from "@/lib/server/with-operator";
import { jsonOf, readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const GET = withOperator(async ({ ctx, caller }) => jsonOf(operatorsResponse, await listTeam(ctx.db, caller)), { role: "agent" });

/** Admins: { role } → a one-time invitation link (its token shown only here). */
export const POST = withOperator(
  async ({ request, ctx, caller }) => {
    const { role } = await readJson(request, invitationBody, 4096);
    return jsonOf(invitationResponse, await inviteOperator(ctx.db, caller, role), 201);
  },
  { role: "admin", to: "invite operators" },
);
