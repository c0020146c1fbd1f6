/**
 * User search text, made safe for the databases' full-text syntax: only its
 * words are kept (letters and digits, any script, with their combining marks:
 * Thai tone marks and Devanagari vowel signs are part of a word), each quoted as a literal
 * term, so `"`, `AND(`, `NEAR`, `*` or `-` can never be read as operators or
 * make the query fail. An empty list means: nothing to search for.
 */
export function searchTerms(text: string, max = 12): string[] {
  const words =
    text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:['’][\p{L}\p{N}][\p{L}\p{M}\p{N}]*)*/gu) ?? [];
  return [...new Set(words.map((w) => w.replace(/['’]/g, "")))].filter(Boolean).slice(0, max);
}

/** An FTS5 MATCH expression: every term as a quoted string (implicit AND). */
export function fts5Match(terms: string[]): string {
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(" ");
}

/** Private-use marks the databases put around a hit; turned into <mark> after escaping. */
export const HIT_START = "\uE000";
export const HIT_END = "\uE001";

const escapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * A snippet as safe markup: the message text HTML-escaped, with only the
 * database's hits wrapped in <mark>…</mark>. Nothing from the message can
 * become a tag; a stray marker in the text itself is dropped.
 */
export function snippetMarkup(raw: string): string {
  let out = "";
  let open = false;
  for (const char of raw) {
    if (char === HIT_START) {
      if (!open) out += "<mark>";
      open = true;
    } else if (char === HIT_END) {
      if (open) out += "</mark>";
      open = false;
    } else out += escapes[char] ?? char;
  }
  return open ? `${out}</mark>` : out;
}
