/** The hand-back the prompt's `--- note …` turn tells of: who handled the conversation, from when to when. */
export type HandoffNote = { from: Date; until: Date; operator: string | null };

/**
 * Whether the next turn's prompt carries the "a human handled this" note: when
 * the hand-back falls inside the messages the model sees, or when the bot has
 * not spoken since it (the first turns after a hand-back).
 */
export function showHandoffNote(handedBackAt: Date | null, context: { sentAt: Date; senderKind: string }[]): boolean {
  if (!handedBackAt || context.length === 0) return false;
  // biome-ignore lint/complexity/useMathMinMax: these are Dates; Math.min would turn the oldest into a number of milliseconds.
  const oldest = context.reduce((min, m) => (m.sentAt < min ? m.sentAt : min), context[0].sentAt);
  if (handedBackAt >= oldest) return true;
  return !context.some((m) => m.senderKind === "agent");
}

/** The last hand-back for the prompt's note, when the note is due (see showHandoffNote). */
export function handoffNoteFor(
  conversation: { lastHandoffFrom?: Date | null; lastHandoffUntil?: Date | null; lastHandoffOperator?: string | null },
  context: { sentAt: Date; senderKind: string }[],
): HandoffNote | null {
  const { lastHandoffFrom: from, lastHandoffUntil: until } = conversation;
  if (!from || !until || !showHandoffNote(until, context)) return null;
  return { from, until, operator: conversation.lastHandoffOperator ?? null };
}
