import { z } from "zod";
import { savedReplyCreateBody, savedReplyPatchBody } from "../inbox/saved-replies";
import { recordIdParam } from "../record-id";
import { defineOperations, isoDate } from "./operation";
import { okResponse } from "./conversations/schema";

export const savedReplyView = z.strictObject({
  id: z.number().int(),
  /** team: every operator sees and edits it; personal: only its owner. */
  scope: z.enum(["team", "personal"]),
  /** Typed as /shortcut in the composer. */
  shortcut: z.string(),
  /** May hold {{first_name}} and {{name}}. */
  text: z.string(),
  createdBy: z.string(),
  createdAt: isoDate,
  updatedAt: isoDate,
  /** With ?conversationId=: the text filled for that conversation's user. */
  expanded: z.string().optional(),
});

export const savedReplyListQuery = z.object({
  /** Matches the start of the shortcut (a leading / is ignored) or any part of the text. */
  search: z.string().max(100).optional(),
  conversationId: recordIdParam.optional(),
});
export const savedReplyListResponse = z.strictObject({ savedReplies: z.array(savedReplyView) });
export const savedReplyResponse = z.strictObject({ savedReply: savedReplyView });
export { savedReplyCreateBody, savedReplyPatchBody };

export const operations = defineOperations([
  {
    method: "get",
    path: "/saved-replies",
    summary: "The caller's saved replies (the team's and their own) by shortcut; with ?conversationId= each is also expanded for its user",
    query: savedReplyListQuery,
    response: { status: 200, schema: savedReplyListResponse },
    errors: { 404: "Unknown conversation, or another bot's conversation for an agent limited to some bots" },
  },
  {
    method: "post",
    path: "/saved-replies",
    summary: "Save a reply { shortcut, text, scope: team | personal }; placeholders {{first_name}} and {{name}}",
    body: savedReplyCreateBody,
    response: { status: 201, schema: savedReplyResponse },
    errors: { 409: "The shortcut is taken in that scope" },
  },
  {
    method: "patch",
    path: "/saved-replies/{id}",
    summary: "Change a saved reply's shortcut, text or scope (the team's, or the caller's own)",
    body: savedReplyPatchBody,
    response: { status: 200, schema: savedReplyResponse },
    errors: { 409: "The shortcut is taken in that scope" },
  },
  {
    method: "delete",
    path: "/saved-replies/{id}",
    summary: "Delete a saved reply (the team's, or the caller's own)",
    response: { status: 200, schema: okResponse },
  },
]);
