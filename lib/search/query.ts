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

/**
 * Scripts written without spaces between words (Chinese, Japanese, Thai, Lao,
 * Khmer, Myanmar), and Korean, whose particles attach to the word before them:
 * a word tokenizer sees a whole run as one token, so "東京" would never find
 * "東京に行きました". Terms in these scripts are searched as substrings.
 */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** Splits terms into words for the full-text index and substrings for the rest (see UNSPACED). */
export function splitTerms(terms: string[]): { words: string[]; substrings: string[] } {
  return { words: terms.filter((t) => !UNSPACED.test(t)), substrings: terms.filter((t) => UNSPACED.test(t)) };
}

/** A LIKE pattern that matches `term` anywhere, literally (with ESCAPE '\\'). */
export function likeContaining(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A snippet made here rather than by the database (substring matches have no
 * index to make one): about `width` characters around the first hit, every
 * occurrence of a term wrapped in HIT_START/HIT_END, case-insensitively.
 */
export function substringSnippet(text: string, terms: string[], width = 80): string {
  // Lowercasing can change a string's length (İ → i̇); then match as written.
  const folded = text.toLowerCase();
  const lower = folded.length === text.length ? folded : text;
  const hits: [number, number][] = [];
  for (const term of terms) {
    for (let at = lower.indexOf(term); at >= 0 && term; at = lower.indexOf(term, at + term.length)) hits.push([at, at + term.length]);
  }
  hits.sort((a, b) => a[0] - b[0]);
  const first = hits[0]?.[0] ?? 0;
  const start = Math.max(0, Math.min(first - Math.floor(width / 3), text.length - width));
  const end = Math.min(text.length, start + width);
  let out = start > 0 ? "…" : "";
  let at = start;
  for (const [from, to] of hits) {
    if (from < at || from >= end) continue;
    out += `${text.slice(at, from)}${HIT_START}${text.slice(from, Math.min(to, end))}${HIT_END}`;
    at = Math.min(to, end);
  }
  return out + text.slice(at, end) + (end < text.length ? "…" : "");
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
