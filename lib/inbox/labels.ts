import { z } from "zod";
import type { BotScope } from "../db/conversation-scope";
import type { Database } from "../db/database";
import { countLabelled, createLabel, deleteLabel, findLabel, findLabelsByKey, listLabels, updateLabel } from "../db/labels";
import { AppError, notFound } from "../errors";
import { publish } from "../events/bus";

/**
 * Labels: admins define them (a name, unique ignoring case, and a color); any
 * operator who may see a conversation puts them on it or takes them off
 * (lib/pipeline/conversation-status.ts records each change in its history).
 * Conversations hold labels by id, so a renamed label is renamed everywhere and a
 * deleted one leaves every conversation.
 */

/** A label's color when none is given. */
export const DEFAULT_LABEL_COLOR = "#6b7280";

/** Trimmed, 1–40 characters, no control characters (they would break the list, the CSV and the URL). */
export const labelName = z
  .string()
  .trim()
  // One spelling per name: "é" typed as one character or as "e" and an accent is the same label.
  .transform((name) => name.normalize("NFC"))
  .refine((name) => name.length > 0, "the label name is empty")
  .refine((name) => [...name].length <= 40, "a label name has at most 40 characters")
  .refine((name) => !/[\p{Cc}\u2028\u2029]/u.test(name), "a label name has no control characters")
  // Invisible characters and direction overrides make two names look alike (joiners stay: emoji need them).
  .refine((name) => !/[\u200B\u200E\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/u.test(name), "a label name has no invisible characters");
const labelColor = z
  .string()
  .trim()
  .regex(/^#[0-9a-fA-F]{6}$/, "a color is #rrggbb")
  .transform((color) => color.toLowerCase());

export const labelCreateBody = z.strictObject({ name: labelName, color: labelColor.default(DEFAULT_LABEL_COLOR) });
export const labelPatchBody = z
  .strictObject({ name: labelName.optional(), color: labelColor.optional() })
  .refine((body) => Object.keys(body).length > 0, "nothing to change: give name or color");

const taken = (name: string) => new AppError("conflict", `a label named "${name}" already exists`);

/** Label changes alter what every list shows (names, colors, which conversations carry one). */
const announce = (db: Database) => publish(db, { type: "conversation", conversationId: null });

/** Every label, by name, each with how many of the scope's conversations carry it. */
export async function labelsWithCounts(db: Database, bots: BotScope | undefined) {
  const [labels, counts] = await Promise.all([listLabels(db), countLabelled(db, bots)]);
  return labels.map((label) => ({ ...label, conversations: counts.get(label.id) ?? 0 }));
}

/** Every label, by name. */
export const allLabels = (db: Database) => listLabels(db);

export async function addLabel(db: Database, body: z.infer<typeof labelCreateBody>) {
  const label = await createLabel(db, body);
  if (!label) throw taken(body.name);
  announce(db);
  return label;
}

export async function changeLabel(db: Database, id: number, body: z.infer<typeof labelPatchBody>) {
  if (!(await findLabel(db, id))) throw notFound("label");
  const label = await updateLabel(db, id, body);
  if (!label) throw taken(body.name ?? "");
  announce(db);
  return label;
}

/** Deletes the label: it leaves every conversation that had it. */
export async function removeLabel(db: Database, id: number) {
  if (!(await findLabel(db, id))) throw notFound("label");
  await deleteLabel(db, id);
  announce(db);
}

/**
 * The labels these names name (ignoring case), each once, in the order given; a
 * name no label has is a 400 (admins define labels, nobody makes one by tagging).
 */
export async function labelsNamed(db: Database, names: string[]) {
  // As names are stored: one spelling (NFC), ignoring case.
  const keyOf = (name: string) => name.normalize("NFC").toLowerCase();
  const keys = [...new Set(names.map(keyOf))];
  const found = new Map((await findLabelsByKey(db, keys)).map((label) => [label.nameKey, label]));
  const unknown = names.filter((name) => !found.has(keyOf(name)));
  if (unknown.length > 0) throw new AppError("bad_request", `no label named "${unknown[0]}"`);
  return keys.map((key) => {
    const { nameKey: _, ...label } = found.get(key)!;
    return label;
  });
}
