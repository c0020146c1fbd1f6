import { requireAdmin } from "../auth/roles";
import type { Caller } from "../auth/operators";
import type { ReplayRequest } from "./variant";

/** A variant that points the server at another address or key is an admin's call (the server makes that request). */
export function checkVariantAccess(caller: Caller, request: ReplayRequest) {
  if (request.variant.model?.baseUrl || request.variant.model?.apiKey)
    requireAdmin(caller, "replay with another model's base URL or API key");
}
