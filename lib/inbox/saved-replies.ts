import { z } from "zod";
import { type BotScope, refuseConversationOutOfScope } from "../auth/bot-scope";
import type { Database } from "../db/database";
import { readContact } from "../db/contact";
import { createSavedReply, deleteSavedReply, findSavedReply, listSavedReplies, updateSavedReply } from "../db/saved-replies";
import { AppError, notFound } from "../errors";
import { expandSavedReply, placeholders, unknownPlaceholders } from "./saved-reply-template";

/**
 * Saved replies ("canned responses"): the team's, which every operator sees and
 * may edit, and each operator's own, which only they see. An operator types
 * `/shortcut` in the composer; the reply is filled for the conversation's user.
 */

const shortcut = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, "1–32 letters, digits, - or _, starting with a letter or digit");
const text = z
  .string()
  .trim()
  .min(1, "the reply is empty")
  .max(4000)
  .refine((t) => unknownPlaceholders(t).length === 0, {
    message: `unknown placeholder: use ${placeholders.map((p) => `{{${p}}}`).join(" or ")}`,
  });
const scope = z.enum(["team", "personal"]);

export const savedReplyCreateBody = z.strictObject({ shortcut, text, scope: scope.default("team") });
export const savedReplyPatchBody = z
  .strictObject({ shortcut: shortcut.optional(), text: text.optional(), scope: scope.optional() })
  .refine((body) => Object.keys(body).length > 0, "nothing to change: give shortcut, text or scope");

/** Who asks: an operator's id (0 for the API token, which has no personal replies) and name. */
export type Owner = { id: number; name: string };

const personalScope = (owner: Owner) => `operator:${owner.id}`;

function scopeOf(owner: Owner, wanted: "team" | "personal") {
  if (wanted === "personal" && owner.id === 0)
    throw new AppError("bad_request", "the API token has no personal saved replies: use scope team");
  return wanted === "team" ? "team" : personalScope(owner);
}

function view(row: NonNullable<Awaited<ReturnType<typeof findSavedReply>>>, expanded?: string) {
  const { scope: stored, ...rest } = row;
  return { ...rest, scope: stored === "team" ? ("team" as const) : ("personal" as const), ...(expanded !== undefined ? { expanded } : {}) };
}

/** One the caller may see and change: the team's or their own (another's reads as not found). */
async function ownReply(db: Database, owner: Owner, id: number) {
  const row = await findSavedReply(db, id);
  if (!row || (row.scope !== "team" && row.scope !== personalScope(owner))) throw notFound("saved reply");
  return row;
}

/**
 * The caller's saved replies (team and own), `search` matching the start of the
 * shortcut or any of the text; with a conversation, each also `expanded` for its user.
 */
export async function savedRepliesFor(
  db: Database,
  owner: Owner,
  options: { search?: string; conversationId?: number },
  /** The caller's bots: another bot's conversation is unknown to them (its user's name would fill the replies). */
  bots?: BotScope,
) {
  const scopes = owner.id === 0 ? ["team"] : ["team", personalScope(owner)];
  const rows = await listSavedReplies(db, scopes, options.search?.trim().replace(/^\//, "").toLowerCase() || undefined);
  if (options.conversationId === undefined) return rows.map((row) => view(row));
  await refuseConversationOutOfScope(db, bots, options.conversationId);
  const contact = await readContact(db, options.conversationId);
  if (contact === undefined) throw notFound("conversation");
  return rows.map((row) => view(row, expandSavedReply(row.text, { name: contact?.name ?? null })));
}

const taken = (s: string) => new AppError("conflict", `the shortcut /${s} is already taken`);

export async function addSavedReply(db: Database, owner: Owner, body: z.infer<typeof savedReplyCreateBody>) {
  const row = await createSavedReply(db, {
    scope: scopeOf(owner, body.scope),
    shortcut: body.shortcut,
    text: body.text,
    createdBy: owner.name,
  });
  if (!row) throw taken(body.shortcut);
  return view(row);
}

export async function changeSavedReply(db: Database, owner: Owner, id: number, body: z.infer<typeof savedReplyPatchBody>) {
  const current = await ownReply(db, owner, id);
  const row = await updateSavedReply(db, id, {
    shortcut: body.shortcut,
    text: body.text,
    scope: body.scope ? scopeOf(owner, body.scope) : undefined,
  });
  if (!row) throw taken(body.shortcut ?? current.shortcut);
  return view(row);
}

export async function removeSavedReply(db: Database, owner: Owner, id: number) {
  await ownReply(db, owner, id);
  await deleteSavedReply(db, id);
}
