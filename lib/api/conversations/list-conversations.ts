import type { Caller } from "../../auth/operators";
import { listBotLabels } from "../../db/bots";
import { type ConversationListOptions, countInboxViews, listConversations as listRows } from "../../db/conversations";
import type { Database } from "../../db/database";
import { labelsNamed, labelsWithCounts } from "../../inbox/labels";

/** The list's query as the API takes it: a label by name (resolved here; an unknown one is a 400). */
export type ConversationListQuery = Omit<ConversationListOptions, "me" | "bots" | "labelId"> & { label?: string };

/** The list's options for this caller, the label resolved to its id (400 when no label has that name). */
export async function listOptions(db: Database, query: ConversationListQuery, caller: Pick<Caller, "operator" | "bots">) {
  const { label, ...rest } = query;
  const labelId = label === undefined ? undefined : (await labelsNamed(db, [label]))[0].id;
  return { ...rest, labelId, me: caller.operator.id, bots: caller.bots } satisfies ConversationListOptions;
}

/**
 * One inbox view for an operator (filtered by label and priority when asked), with
 * the counts of every view within those filters, the names of the bots they see,
 * and every label with how many of their conversations carry it.
 */
export async function listConversations(db: Database, query: ConversationListQuery, caller: Pick<Caller, "operator" | "bots">) {
  const options = await listOptions(db, query, caller);
  const [conversations, counts, bots, labels] = await Promise.all([
    listRows(db, options),
    countInboxViews(db, caller.operator.id, caller.bots, options),
    listBotLabels(db, caller.bots),
    labelsWithCounts(db, caller.bots),
  ]);
  return { conversations, counts, bots, labels };
}
