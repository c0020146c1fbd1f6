import { z } from "zod";

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
