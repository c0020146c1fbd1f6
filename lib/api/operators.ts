import { recordId } from "../record-id";
import { z } from "zod";
import { passwordChangeBody } from "../auth/account";
import { displayNameSchema } from "../auth/display-name";
import { roleSchema } from "../auth/roles";
import { defineOperations, isoDate } from "./operation";

export const operatorPatchBody = z
  .strictObject({
    displayName: displayNameSchema.optional(),
    /** Admins only. */
    role: roleSchema.optional(),
    /** Admins only: true disables the account (its sessions end at once), false enables it again. */
    disabled: z.boolean().optional(),
    /** Admins only: the bots (Bot ids) whose conversations an agent sees and acts on; null = every bot. Admins are never limited. */
    botIds: z.array(recordId).max(500).nullable().optional(),
  })
  .refine((body) => Object.values(body).some((v) => v !== undefined), "name at least one of displayName, role, disabled, botIds");

export const operatorView = z.strictObject({
  id: z.number().int(),
  /** The sign-in name; envelopes are addressed from `operator:<name>`. */
  name: z.string(),
  /** What the console shows; null → `name`. */
  displayName: z.string().nullable(),
  /** `admin`: settings, simulator, operators and all an agent does; `agent`: conversations only. */
  role: roleSchema,
  /** `disabled`: cannot sign in until enabled; `removed`: gone for good, the name stays on their history. */
  status: z.enum(["active", "disabled", "removed"]),
  /** The bots (Bot ids) an agent is limited to; null = every bot. Has no effect while the operator is an admin. */
  botIds: z.array(z.number().int()).nullable(),
  createdAt: isoDate,
});

export const invitationView = z.strictObject({
  id: z.number().int(),
  /** The role the new operator gets. */
  role: roleSchema,
  /** Who created it: an operator's name, or `api` for the API token. */
  createdBy: z.string(),
  /** After this the link no longer works. */
  expiresAt: isoDate,
  createdAt: isoDate,
});

export const operatorsResponse = z.strictObject({
  operators: z.array(operatorView),
  /** Links not used, withdrawn or expired yet; always empty for agents. */
  invitations: z.array(invitationView),
  /** The caller's operator id; null for the API token (no account). */
  me: z.number().int().nullable(),
  /** The caller's role (the API token is an admin). */
  role: roleSchema,
});
export const operatorResponse = z.strictObject({ operator: operatorView });

export const invitationBody = z.strictObject({ role: roleSchema });
export const invitationResponse = z.strictObject({
  invitation: invitationView,
  /** The one-time token, shown only in this response (only its hash is stored). */
  token: z.string(),
  /** The link to pass on, relative to the console's address: `/invite#<token>` (a fragment: never sent to a server or in a Referer). */
  path: z.string(),
});
export const okResponse = z.strictObject({ ok: z.literal(true) });

export const sessionsResponse = z.strictObject({
  /** The caller's live sessions, newest first; empty for the API token (no account). */
  sessions: z.array(
    z.strictObject({
      id: z.number().int(),
      createdAt: isoDate,
      expiresAt: isoDate,
      /** The browser's User-Agent at sign-in. */
      userAgent: z.string().nullable(),
      /** The session making this request. */
      current: z.boolean(),
    }),
  ),
});

export const operations = defineOperations([
  {
    method: "get",
    path: "/operators",
    summary:
      "Operators (with role and status; removed ones too, for the names in the history), open invitations (admins only), and who the caller is",
    response: { status: 200, schema: operatorsResponse },
  },
  {
    method: "post",
    path: "/operators",
    summary: "Admins: invite an operator with a role; answers a one-time link (expires after 72 hours) to pass on",
    body: invitationBody,
    response: { status: 201, schema: invitationResponse },
    errors: { 403: "the caller is an agent" },
  },
  {
    method: "patch",
    path: "/operators/{id}",
    summary:
      "Set a display name (one's own; admins anyone's), a role, disabled (admins only; disabling ends the operator's sessions at once) or the bots an agent is limited to (admins only; null = every bot)",
    body: operatorPatchBody,
    response: { status: 200, schema: operatorResponse },
    errors: {
      400: "an unknown bot id in botIds",
      403: "an agent changing a role, disabling, bots, or another operator's name",
      409: "it would leave no active admin",
    },
  },
  {
    method: "delete",
    path: "/operators/{id}",
    summary: "Admins: remove an operator; their sessions end at once, their history keeps their name (which cannot be reused)",
    response: { status: 200, schema: operatorResponse },
    errors: { 403: "the caller is an agent", 409: "the last active admin" },
  },
  {
    method: "delete",
    path: "/operators/invitations/{id}",
    summary: "Admins: withdraw an invitation nobody used yet",
    response: { status: 200, schema: okResponse },
    errors: { 403: "the caller is an agent" },
  },
  {
    method: "post",
    path: "/account/password",
    summary: "Change your own password (the current one required); your other sessions end, this one stays",
    body: passwordChangeBody,
    response: { status: 200, schema: okResponse },
    errors: { 403: "wrong current password, or the API token (it has no account)", 429: "too many wrong attempts" },
  },
  {
    method: "get",
    path: "/account/sessions",
    summary: "Your own live sessions (where you are signed in)",
    response: { status: 200, schema: sessionsResponse },
  },
  {
    method: "delete",
    path: "/account/sessions/{id}",
    summary: "End one of your own sessions (your current one too: that signs you out)",
    response: { status: 200, schema: okResponse },
    errors: { 403: "the API token (it has no account)" },
  },
]);
