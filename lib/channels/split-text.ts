/**
 * Splits a long text into parts of at most `limit` UTF-16 code units (how Telegram and
 * LINE count a message's length, and JavaScript's `length`), at a line break or else a
 * space in the second half of the part, else hard at the limit. Never inside a
 * surrogate pair: an emoji cut in two would arrive as two broken characters.
 *
 * @example splitText("a".repeat(6000), 5000) // ["a"×5000, "a"×1000]
 */
export function splitText(text: string, limit: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    let cut = rest.lastIndexOf("\n", limit);
    if (cut < limit / 2) cut = rest.lastIndexOf(" ", limit);
    if (cut < limit / 2) cut = limit;
    // A high surrogate ends the part: its low half would start the next one.
    if (isHighSurrogate(rest.charCodeAt(cut - 1))) cut -= 1;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^\s+/, "");
  }
  if (rest || parts.length === 0) parts.push(rest);
  return parts;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
