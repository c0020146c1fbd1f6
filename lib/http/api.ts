import { refuseOutOfScope } from "../auth/bot-scope";
import { authenticate, type Caller } from "../auth/operators";
import { getApp, type App } from "../server/wiring";
import { checkQueryInput } from "./input-checks";
import { errorResponse } from "./respond";

type Params = Record<string, string | string[] | undefined>;
export type ApiHandler<P extends Params> = (args: { request: Request; params: P; ctx: App; caller: Caller }) => Promise<Response>;

/**
 * Wraps an /api/v1 route handler: builds the context, authenticates the caller
 * (session cookie with CSRF on mutations, or the API token) and maps every error
 * to a Response in one place.
 */
export function withOperator<P extends Params = Params>(handler: ApiHandler<P>) {
  return async (request: Request, route: { params: Promise<P> }): Promise<Response> => {
    try {
      const ctx = await getApp();
      const caller = await authenticate(ctx.db, request, { apiToken: ctx.env.SWITCHBOARD_API_TOKEN });
      checkQueryInput(request.url);
      // A static route gets no params from Next (route or its params undefined).
      const params = ((await route?.params) ?? {}) as P;
      // A caller limited to some bots: another bot's conversation (or anything of it) is a 404 before the route runs.
      await refuseOutOfScope(ctx.db, caller.bots, new URL(request.url).pathname, params.id);
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
