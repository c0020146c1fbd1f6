import { z } from "zod";
import { defineOperations } from "./operation";

/**
 * An operator's display name: what the console shows for their messages and
 * envelopes instead of the sign-in name. One line of visible text; blank clears it.
 * The console only: prompts never carry it (operators' messages reach the model
 * labelled by role, lib/context/prompt.ts OPERATOR_PREFIX).
 */
export const displayNameSchema = z
  .string()
  .trim()
  .max(64, "at most 64 characters")
  // Control characters and line breaks would let a name pose as another line in a list.
  .refine((value) => !/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(value), "letters, digits, spaces and punctuation only")
  .transform((value) => (value === "" ? null : value))
  .nullable();

export const operatorPatchBody = z.strictObject({ displayName: displayNameSchema });

export const operatorView = z.strictObject({
  id: z.number().int(),
  /** The sign-in name; envelopes are addressed from `operator:<name>`. */
  name: z.string(),
  /** What the console shows; null → `name`. */
  displayName: z.string().nullable(),
});

export const operatorsResponse = z.strictObject({
  operators: z.array(operatorView),
  /** The caller's operator id; null for the API token (no account). */
  me: z.number().int().nullable(),
});
export const operatorResponse = z.strictObject({ operator: operatorView });

export const operations = defineOperations([
  {
    method: "get",
    path: "/operators",
    summary: "Operators with their display names (the console shows these as senders), and which one is the caller",
    response: { status: 200, schema: operatorsResponse },
  },
  {
    method: "patch",
    path: "/operators/{id}",
    summary: "Set or clear an operator's display name; a signed-in operator may change only their own",
    body: operatorPatchBody,
    response: { status: 200, schema: operatorResponse },
    errors: { 403: "a signed-in operator changing another operator's name" },
  },
]);
