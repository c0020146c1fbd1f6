import { refuseOutOfScope, type ScopeKind } from "../auth/bot-scope";
import { authenticate, type Caller } from "../auth/operators";
import { requireAdmin } from "../auth/roles";
import { getApp, type App } from "./wiring";
import { checkQueryInput } from "../http/input-checks";
import { errorResponse } from "../http/respond";

type Params = Record<string, string | string[] | undefined>;
export type ApiHandler<P extends Params> = (args: { request: Request; params: P; ctx: App; caller: Caller }) => Promise<Response>;

/**
 * Who may call a route, declared beside it. `role: "agent"`: any operator (agents and
 * admins); `role: "admin"`: admins and the API token only, others get 403 naming what
 * they tried (`only an admin can <to>`). `scope`: what the route's `[id]` names; for a
 * caller limited to some bots, a record of another bot's conversation is a 404 with the
 * words of an unknown id (a `dataset` route is a 403 to them), before the route runs.
 */
export type Access = { scope?: ScopeKind } & ({ role: "agent" } | { role: "admin"; to: string });

/**
 * Wraps an /api/v1 route handler: builds the context, authenticates the caller
 * (session cookie with CSRF on mutations, or the API token), checks the declared
 * access (role, then scope) and maps every error to a Response in one place.
 *
 * @example
 * export const PATCH = withOperator(async ({ params, ctx, caller }) => …, { role: "admin", to: "change bots" });
 */
export function withOperator<P extends Params = Params>(handler: ApiHandler<P>, access: Access) {
  return async (request: Request, route: { params: Promise<P> }): Promise<Response> => {
    try {
      const ctx = await getApp();
      const caller = await authenticate(ctx.db, request, { apiToken: ctx.env.SWITCHBOARD_API_TOKEN });
      checkQueryInput(request.url);
      // A static route gets no params from Next (route or its params undefined).
      const params = ((await route?.params) ?? {}) as P;
      // The role first: it does not depend on the id, so an agent's 403 says nothing about one. Scope first
      // answered an agent limited to some bots 404 for another bot's record but 403 for an unknown id.
      if (access.role === "admin") requireAdmin(caller, access.to);
      if (access.scope) await refuseOutOfScope(ctx.db, caller.bots, access.scope, params.id);
      return await handler({ request, params, ctx, caller });
    } catch (error) {
      return errorResponse(error);
    }
  };
}

/** Same error mapping for routes that authenticate themselves (webhooks, sign-in). */
export function withErrors<P extends Params = Params>(handler: (args: { request: Request; params: P; ctx: App }) => Promise<Response>) {
  return async (request: Request, route: { params: Promise<P> }): Promise<Response> => {
    try {
      return await handler({ request, params: ((await route?.params) ?? {}) as P, ctx: await getApp() });
    } catch (error) {
      return errorResponse(error);
    }
  };
}
