/**
 * Placeholders a saved reply may hold, filled from the conversation's contact when
 * it is inserted: `{{first_name}}` (the first word of the user's name) and
 * `{{name}}`. Anything else in double braces is refused when the reply is saved,
 * so a typo never reaches a user as literal braces. Pure: tested on its own.
 */
export const placeholders = ["first_name", "name"] as const;

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The unknown placeholders of a text (empty when it may be saved). */
export function unknownPlaceholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]).filter((name) => !(placeholders as readonly string[]).includes(name));
}

/**
 * Fills the placeholders. An unknown name leaves nothing behind, and the space
 * before the punctuation that followed it goes too: "Hi {{first_name}}, …" →
 * "Hi, …".
 *
 * @example expandSavedReply("Hi {{first_name}}!", { name: "Ada Lovelace" }) // "Hi Ada!"
 */
export function expandSavedReply(text: string, contact: { name: string | null }): string {
  const name = contact.name?.trim() ?? "";
  const values: Record<string, string> = { first_name: name.split(/\s+/)[0] ?? "", name };
  // The space before a placeholder is part of the match: an empty value takes it along.
  return text.replace(/( ?)\{\{\s*([^{}]*?)\s*\}\}/g, (whole, space: string, key: string) =>
    key in values ? (values[key] ? space + values[key] : "") : whole,
  );
}
