// User text becomes search terms here, and the terms the indexes' queries: beside the
// SQL that runs them (lib/db/search.ts). The migrations, written when this file was
// lib/search/query.ts, name it so.

/**
 * Code point ranges of the scripts written without spaces between words
 * (Chinese, Japanese, Thai, Lao, Khmer, Myanmar) and of Korean, whose particles
 * attach to the word before them: a word tokenizer sees a whole run as one
 * token, so "東京" would never find "東京に行きました". A term holding any of these
 * characters is searched as a substring, with the n-gram indexes of the
 * migration 20261125103000_message_substring_search, which index only the
 * messages holding one of them: both migrations spell out exactly these ranges
 * (tests/integration/search.test.ts compares them).
 */
export const UNSPACED_RANGES: readonly (readonly [number, number])[] = [
  [0x0e00, 0x0eff], // Thai, Lao
  [0x1000, 0x109f], // Myanmar
  [0x1100, 0x11ff], // Hangul Jamo
  [0x1780, 0x17ff], // Khmer
  [0x2e80, 0x2fdf], // CJK and Kangxi radicals
  [0x3000, 0x9fff], // CJK symbols, kana, Bopomofo, Hangul compatibility Jamo, CJK ideographs (with extension A)
  [0xa960, 0xa97f], // Hangul Jamo extended A
  [0xac00, 0xd7ff], // Hangul syllables, Jamo extended B
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xff65, 0xffdc], // halfwidth Katakana and Hangul
  [0x1b000, 0x1b2ff], // Kana supplement and extensions
  [0x20000, 0x3ffff], // CJK ideograph extensions B–H
];

const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, "0");
const UNSPACED = new RegExp(`[${UNSPACED_RANGES.map(([a, b]) => `\\u{${hex(a)}}-\\u{${hex(b)}}`).join("")}]`, "u");

/** SQLite's GLOB pattern for "the text holds an unspaced-script character" (the trigram index's triggers). */
export function unspacedGlob(): string {
  return `*[${UNSPACED_RANGES.map(([a, b]) => `${String.fromCodePoint(a)}-${String.fromCodePoint(b)}`).join("")}]*`;
}

/** PostgreSQL's regular expression for the same (the n-gram index's predicate). */
export function unspacedRegex(): string {
  const code = (n: number) => (n > 0xffff ? `\\U${n.toString(16).toUpperCase().padStart(8, "0")}` : `\\u${hex(n)}`);
  return `[${UNSPACED_RANGES.map(([a, b]) => `${code(a)}-${code(b)}`).join("")}]`;
}

/** The longest word a search takes (characters): longer ones are refused with a 400 (see longTerm). */
export const MAX_TERM_LENGTH = 64;
/** Words past this many are ignored. */
export const MAX_TERMS = 12;

/**
 * One thing to find. A `word` (spaced scripts) is matched on word boundaries by
 * the full-text index: its parts (split at apostrophes, as the tokenizers split
 * "it's" into "it" and "s") as a phrase, the last part as a prefix when it has
 * two characters or more ("arriv" finds "arrived"). A `substring` (unspaced
 * scripts) is matched anywhere in the text.
 */
export type SearchTerm = { kind: "word"; parts: string[] } | { kind: "substring"; text: string };

// U+02BC (ʼ) is a letter to both tokenizers, so it stays inside its word.
const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:['’][\p{L}\p{N}][\p{L}\p{M}\p{N}]*)*/gu;
const APOSTROPHE = /['’]/;

function words(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().match(WORD) ?? [];
}

/**
 * User search text, made safe for the databases' full-text syntax: only its
 * words are kept (letters and digits, any script, with their combining marks:
 * Thai tone marks and Devanagari vowel signs are part of a word), and each
 * becomes a quoted literal, so `"`, `AND(`, `NEAR`, `*` or `-` can never be
 * read as operators or make the query fail. An empty list: nothing to search.
 */
export function searchTerms(text: string, max = MAX_TERMS): SearchTerm[] {
  const seen = new Set<string>();
  const terms: SearchTerm[] = [];
  for (const word of words(text)) {
    const parts = word.split(APOSTROPHE).filter(Boolean);
    if (parts.length === 0) continue;
    const key = parts.join("'");
    if (seen.has(key)) continue;
    seen.add(key);
    // An apostrophe inside a word of an unspaced script: each side is its own substring.
    if (UNSPACED.test(word)) for (const part of parts) terms.push({ kind: "substring", text: part });
    else terms.push({ kind: "word", parts });
  }
  return terms.slice(0, max);
}

/** The first word of `text` longer than MAX_TERM_LENGTH characters, if any (the API refuses it). */
export function longTerm(text: string): string | undefined {
  return words(text).find((w) => [...w].length > MAX_TERM_LENGTH);
}

export const isUnspaced = (text: string) => UNSPACED.test(text);

/** Whether a word's last part is matched as a prefix (one letter would expand to every word starting with it). */
const prefixed = (parts: string[]) => [...parts.at(-1)!].length >= 2;

const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;

/** An FTS5 MATCH expression for words: each a quoted phrase, the prefix ones starred (implicit AND). */
export function fts5Match(terms: { parts: string[] }[]): string {
  return terms.map((t) => `${quoted(t.parts.join(" "))}${prefixed(t.parts) ? "*" : ""}`).join(" ");
}

/** A PostgreSQL to_tsquery text for words: parts joined as a phrase (<->), the prefix ones with :*, all ANDed. */
export function tsQuery(terms: { parts: string[] }[]): string {
  const lexeme = (part: string) => `'${part.replaceAll("'", "''").replaceAll("\\", "\\\\")}'`;
  return terms
    .map((t) => {
      const phrase = t.parts.map(lexeme);
      if (prefixed(t.parts)) phrase[phrase.length - 1] += ":*";
      return phrase.length > 1 ? `(${phrase.join(" <-> ")})` : phrase[0];
    })
    .join(" & ");
}

/** Substrings of `n` characters (code points), distinct, at most `max` spread over the text. */
function grams(text: string, n: number, max: number): string[] {
  const chars = [...text];
  const all = [...new Set(Array.from({ length: chars.length - n + 1 }, (_, i) => chars.slice(i, i + n).join("")))];
  if (all.length <= max) return all;
  return Array.from({ length: max }, (_, i) => all[Math.round((i * (all.length - 1)) / (max - 1))]!);
}

/**
 * An FTS5 MATCH expression over the trigram index for substrings of three
 * characters or more: every trigram of each (at most 16 per term), ANDed. It
 * narrows to the messages holding them all; the caller checks the substring
 * itself. Shorter substrings have no trigram: null when none has one.
 */
export function trigramMatch(substrings: string[]): string | null {
  const trigrams = substrings.filter((s) => [...s].length >= 3).flatMap((s) => grams(s, 3, 16));
  return trigrams.length > 0 ? [...new Set(trigrams)].map(quoted).join(" ") : null;
}

/**
 * The grams of PostgreSQL's n-gram index a message must hold to contain all
 * `substrings` (its message_grams: every character and pair of characters,
 * lowercased): the pairs of each substring, or the character itself, as a
 * text[] literal.
 */
export function gramArray(substrings: string[]): string {
  const needed = substrings.flatMap((s) => ([...s].length >= 2 ? grams(s, 2, 32) : [s]));
  return `{${[...new Set(needed)].map((g) => `"${g.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(",")}}`;
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
