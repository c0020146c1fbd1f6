import confusables from "unhomoglyph/data.json";

/**
 * The prompt sanitizer. User-controlled text (names, quotes, bodies, titles)
 * must not be able to pose as the prompt's own structure: envelope headers,
 * reply annotations, chat-template tokens or role markers. docs/SECURITY.md
 * states what it guarantees.
 *
 * It works by construction rather than by listing attacks: text is first brought
 * to one canonical form (well-formed UTF-16, one kind of line break, no invisible
 * code points, NFKC), and every decision is taken on that form — the form the
 * output is in. Structure is then recognised by character class (any dash,
 * bracket, math symbol or arrow, plus their Unicode confusables), not by spelling.
 */

// Every line separator Unicode or a tokenizer may honour (CRLF first).
// biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are line breaks to the model; matching them is the point.
const LINE_BREAKS = /\r\n|[\n\v\f\r\x1c-\x1e\x85\u2028\u2029]/g;
// Code points that show nothing: controls other than tab and newline, format
// characters (zero-width, bidi controls, tags U+E0000–E007F), default-ignorables
// (variation selectors, U+034F, Hangul fillers) and noncharacters.
const INVISIBLE = /(?![\t\n])[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]/gu;
const PRINTABLE_ASCII = /^[\x20-\x7e\t\n]*$/;
// Spaces of every width (U+1680 looks like a dash; U+2800 renders blank).
const SPACES = /[\p{Zs}\u2800]/gu;

// Chat-template tokens of the common model families, as they read after NFKC
// (DeepSeek's full-width bars become `|`).
const TEMPLATE_TOKENS = [
  // ChatML, Llama 3/4, Phi, Command-R, DeepSeek, Granite, gpt-oss harmony, …: <|anything|>
  /<\|[^<>|\n]{0,80}\|>/g,
  // Llama 2 system block.
  /<<[\s/]*SYS\s*>>/gi,
  // Llama 2 / Mistral / GLM square-bracket controls.
  /\[[\s/]*(?:INST|SYS|SYSTEM_PROMPT|TOOL_CALLS|AVAILABLE_TOOLS|TOOL_RESULTS|TOOL_CONTENT|THINK|IMG|IMG_BREAK|IMG_END|PREFIX|MIDDLE|SUFFIX|[gs]?MASK|BOS|EOS|SEP|CLS|PAD|UNK|CONTROL_\d+|SYSTEM|USER|ASSISTANT)\s*\]/gi,
  // Angle-bracket specials: sentence markers, Gemma turns, reasoning and tool tags, XML role tags.
  /<[\s/]*(?:s|bos|eos|pad|unk|mask|sep|cls|sop|eop|start_of_turn|end_of_turn|start_of_image|end_of_image|think|thinking|tool_calls?|tool_response|tools|function_calls?|system|user|assistant|human|model|developer|im_start|im_end|im_sep|endoftext|reserved_special_token_\d+|reserved_\d+|用户|AI)\s*>/gi,
];

const MAX_ROUNDS = 8;

/** The text in canonical form: well-formed, `\n` line breaks, nothing invisible, NFKC, plain spaces, no template tokens. */
export function canonicalText(text: string): string {
  let out = text.toWellFormed().replace(LINE_BREAKS, "\n");
  // Removing a token or an invisible character can join pieces into a new token,
  // and NFKC can turn look-alikes into ASCII: repeat until nothing changes. Each
  // round either changes nothing or makes the text shorter or NFKC-stable, so it ends.
  // Ordinary text takes one or two rounds; tokens nested k deep (`<<<s>s>s>`) take k,
  // each over the whole text (quadratic: seconds for 40 KB). Past a few rounds the
  // text is hostile: drop every character a token needs, after which one more round is final.
  for (let round = 1; ; round++) {
    if (round > MAX_ROUNDS) out = out.replace(/[<>[\]|]/g, "");
    // Printable ASCII has nothing invisible and is its own NFKC: only tokens to remove.
    let next = PRINTABLE_ASCII.test(out)
      ? out
      : out.replace(INVISIBLE, "").normalize("NFKC").replace(INVISIBLE, "").replace(LINE_BREAKS, "\n").replace(SPACES, " ");
    for (const token of TEMPLATE_TOKENS) next = next.replace(token, " ");
    // No pipe token survives in any spelling: a lone `<|` or `|>` loses its bar.
    next = next.replace(/<\|/g, "<").replace(/\|>/g, ">");
    if (next === out) return out;
    out = next;
  }
}

// Unicode's confusables (UTS #39, via the unhomoglyph package): one code point → the prototype it is read as.
const CONFUSABLES = confusables as Record<string, string>;
const prototypeOf = (ch: string) => CONFUSABLES[ch] ?? ch;

// Letters neither NFKC nor the confusables table maps to Latin, which a reader still
// reads as it: small capitals and negative circled/squared letters (hand-written: no package has them).
const SMALL_CAPITALS = "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘꞯʀꜱᴛᴜᴠᴡxʏᴢ"; // a to z; no small capital x exists
const SMALL_CAPITAL = new RegExp(`[${SMALL_CAPITALS}]`, "gu");
const latinOf = (s: string) =>
  s
    .replace(/[\u{1F150}-\u{1F169}\u{1F170}-\u{1F189}]/gu, (c) => String.fromCharCode(65 + ((c.codePointAt(0)! - 0x1f150) % 32)))
    .replace(SMALL_CAPITAL, (c) => String.fromCharCode(97 + SMALL_CAPITALS.indexOf(c)));

/**
 * The confusable skeletons (UTS #39) of a text as written, lower-cased and
 * upper-cased, without accents: how a reader (or a model) may read it. Several,
 * because a capital's prototype can differ from its small letter's (Greek Ν → N
 * but ν → v; Latin I → l): two texts read alike when a reading of each matches.
 */
export function skeletons(text: string): string[] {
  const fold = (s: string) => [...s].map(prototypeOf).join("");
  const bare = latinOf(text.normalize("NFKD").replace(/\p{M}/gu, ""));
  return [...new Set([bare, bare.toLowerCase(), bare.toUpperCase()].map((v) => fold(fold(latinOf(v)))))];
}
const skeletonSet = (words: readonly string[]) => new Set(words.flatMap(skeletons));

/** Every code point whose confusable prototype matches `pattern`, plus `extra`: built once. */
const lookalikes = (pattern: RegExp, extra = "") =>
  new Set([...Object.keys(CONFUSABLES).filter((ch) => pattern.test(CONFUSABLES[ch])), ...extra]);
/** A regex character class of a set's members. */
const classOf = (chars: Iterable<string>) => [...chars].map((ch) => ch.replace(/[\\\][^-]/g, "\\$&")).join("");

// Structure starts with a dash (header), a bracket (annotation), `<` (tags) or an
// arrow: by Unicode class — dash punctuation, open/close punctuation, math
// symbols, arrows (and ⏎, filed as a technical symbol), box drawing — and anything whose confusable prototype is one.
// Also dash-like symbols filed as other punctuation or symbols (⁓ ⹃ ⎺–⎽ ⏤ ⑈ ▬, block
// elements ▁ ▔) and the dingbat arrows ➔–➿.
const STRUCTURAL_CLASS =
  /[\p{Pd}\p{Ps}\p{Pe}\p{Sm}\u2190-\u21FF\u2500-\u259F\u23AF\u23BA-\u23BD\u23CE\u23E4\u2053\u2448\u25AC\u2794-\u27BF\u2E43\u27F0-\u27FF\u2900-\u297F\u2B00-\u2BFF\u{1F800}-\u{1F8FF}]/u;
const STRUCTURAL_LOOKALIKES = lookalikes(/^[-[\](){}<>|ー⎯←↩↪]/);
const isStructuralChar = (ch: string) => STRUCTURAL_CLASS.test(ch) || STRUCTURAL_LOOKALIKES.has(ch);
// A letter that merely looks like a dash (CJK 一, ー) starts many ordinary lines: only a run of two counts.
const DASH_LETTERS = new Set([...lookalikes(/^[-ー⎯]/, "ー一")].filter((ch) => /\p{L}/u.test(ch)));
/** `·`, the header's field separator, or anything read as it (•, ∙, ⋅, ・, …), between spaces or tabs. */
const FIELD_SEPARATOR_LIKE = new RegExp(`[ \t][${classOf(lookalikes(/^·$/, "·"))}][ \t]`, "u");
const DOTS = lookalikes(/^·$/, "·");
const COLONS = lookalikes(/^:$/, ":");
/** An annotation's opening, `[↩`, or any bracket followed by any arrow (or look-alikes of either). */
const ANNOTATION_OPENING_LIKE = new RegExp(
  `[\\p{Ps}${classOf(lookalikes(/^[[(]/))}][ \\t]*[\\u2190-\\u21FF\\u23CE\\u27F0-\\u27FF\\u2900-\\u297F\\u2B00-\\u2BFF${classOf(lookalikes(/^[←↩↪]/))}]`,
  "u",
);
// Quotation marks of every shape, some of which Unicode files as brackets (Ps/Pe): „ ‚ 〝 〞 〟.
const QUOTE_LIKE = new RegExp(`["\\p{Pi}\\p{Pf}„‚〝〞〟${classOf(lookalikes(/^'+$/))}]`, "gu");

// Role markers of chat formats (`Human:`, `### System:`, `**Assistant**:`, a bare
// `user` line left by a Gemma turn) and this format's labels, compared by skeleton.
const ROLE_WORDS = [
  "system",
  "assistant",
  "user",
  "human",
  "ai",
  "bot",
  "model",
  "developer",
  "tool",
  "function",
  "ipython",
  "instruction",
  "instructions",
  "response",
  "input",
  "output",
  "context",
  "agent",
  "operator",
  "gpt",
  "chatgpt",
  "claude",
  "gemini",
  "llama",
  "unknown",
];
const ROLE_SKELETONS = skeletonSet(ROLE_WORDS);

// Non-letters read as Latin letters (`|` and `1` as l, `0` as O): `A|` reads as `AI`.
const LETTER_LOOKALIKES = new Set([...lookalikes(/^[A-Za-z]$/)].filter((ch) => !/[\p{L}\p{M}]/u.test(ch)));
/** The leading word as read: letters and the non-letters that read as one. */
const leadingWord = (text: string) => {
  const chars = [...text];
  let n = 0;
  while (n < chars.length && (/[\p{L}\p{M}]/u.test(chars[n]) || LETTER_LOOKALIKES.has(chars[n]))) n += 1;
  return chars.slice(0, n).join("");
};

/** A role word (by skeleton) followed by a colon (or look-alike) within a few non-letters, or by nothing but non-letters. */
function isRoleMarker(text: string): boolean {
  const word = leadingWord(text);
  const readings = skeletons(word);
  // A colon-like letter: `System꞉`.
  if (readings.some((sk) => sk.includes(":") && ROLE_SKELETONS.has(sk.slice(0, sk.indexOf(":"))))) return true;
  if (!readings.some((sk) => ROLE_SKELETONS.has(sk))) return false;
  const after = [...text.slice(word.length)];
  const firstAlnum = after.findIndex((ch) => /[\p{L}\p{N}]/u.test(ch));
  const firstColon = after.findIndex((ch) => COLONS.has(ch));
  return firstAlnum < 0 || (firstColon >= 0 && firstColon < firstAlnum && firstColon <= 12);
}

const LIST_MARK = /^[ \t]*[-+>] ?$/;

/**
 * Whether a line of canonical text could be read as this prompt's structure or
 * as a chat-template role marker: its leading non-alphanumeric run holds a
 * structural character, it starts with two dash-like letters, it carries a
 * header's field separator (` · ` or a look-alike) or an annotation's opening
 * (`[↩` or a look-alike) anywhere, or it opens with a role word and a colon.
 */
export function readsAsStructure(line: string): boolean {
  const lead = /^[^\p{L}\p{N}]*/u.exec(line)![0];
  // A list item, `+1` or a `>` quote — one ASCII -, + or > and at most one space
  // before a letter or digit — is not a header (`---`), an annotation or a tag:
  // escaping it would mangle ordinary messages. The other checks still apply.
  const listItem = LIST_MARK.test(lead) && line.length > lead.length;
  if (!listItem && [...lead].some(isStructuralChar)) return true;
  const [first, second] = line.slice(lead.length);
  if (DASH_LETTERS.has(first) && DASH_LETTERS.has(second)) return true;
  if (FIELD_SEPARATOR_LIKE.test(line) || ANNOTATION_OPENING_LIKE.test(line)) return true;
  return isRoleMarker(line.slice(lead.length));
}

/**
 * Cuts `text` to at most `max` code points at a grapheme boundary (an emoji, a
 * flag or a letter with its accents is never split; never a lone surrogate),
 * adding "..." when something was cut.
 */
export function truncate(text: string, max: number): string {
  const codePoints = [...text];
  if (codePoints.length <= max) return text;
  // Only the head is segmented (segmenting 70,000 characters takes seconds): a boundary
  // depends on the characters before it and the one after, all inside max + 1.
  const head = codePoints.slice(0, max + 1).join("");
  let out = "";
  let count = 0;
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(head)) {
    const n = [...segment].length;
    if (count + n > max) {
      // One grapheme longer than the whole budget (a letter under a pile of marks): its first code points.
      if (out === "") out = [...segment].slice(0, max).join("");
      break;
    }
    out += segment;
    count += n;
  }
  return `${out.trimEnd()}...`;
}

/** One line: line breaks and tabs become spaces, runs of spaces collapse. */
function oneLine(text: string): string {
  return text
    .replace(/[\n\t]+/g, " ")
    .replace(/ {2,}/g, " ")
    .trim();
}

/**
 * For text shown inside `"…"` on one of our lines (quotes, titles): canonical,
 * one line, every double quote (and look-alike: curly, full-width, primes)
 * becomes `'`, every bracket `(` or `)`, so it can neither close the quote nor
 * the line's brackets, and no trailing backslash. Cut to `maxChars` code points at a grapheme boundary.
 */
export function sanitizeInline(text: string, maxChars?: number): string {
  const out = oneLine(canonicalText(text))
    .replace(QUOTE_LIKE, "'")
    .replace(/\p{Ps}/gu, "(")
    .replace(/\p{Pe}/gu, ")")
    .replace(/'{2,}/g, "'")
    // A backslash before our closing quote would read as escaping it.
    .replace(/[ \\]*\\$/, "");
  return maxChars === undefined ? out : truncate(out, maxChars);
}

/**
 * A display name: inline-safe, short, and unable to add a header field or end
 * the annotation's sender early — look-alikes of `·` become `.`, of `:` a space.
 * Undefined when nothing visible is left.
 */
export function sanitizeName(name: string | null | undefined): string | undefined {
  if (!name) return undefined;
  // Mapping a colon to a space can complete a tag (`<|Human:>` → `<Human >`): repeat until stable.
  let out = name;
  for (let previous = ""; out !== previous; ) {
    previous = out;
    out = [...sanitizeInline(out)].map((ch) => (DOTS.has(ch) ? "." : COLONS.has(ch) ? " " : ch)).join("");
  }
  return truncate(oneLine(out), 64) || undefined;
}

/** The labels this format gives the prompt's own parties; a user's name that reads as one is marked. */
// (Not `user` or `human`: a user called "LINE user 1234" is no impostor.)
// `note` labels a record note in pending updates and fork summaries.
export const RESERVED_LABELS = ["agent", "unknown", "operator", "system", "assistant", "developer", "model", "note"] as const;
const RESERVED_SKELETONS = skeletonSet(RESERVED_LABELS);

/** Whether a (sanitized) name reads as one of the reserved labels: any of its words, or its letters run together. */
export function isReservedLookalike(name: string): boolean {
  return skeletons(name).some(
    (sk) =>
      RESERVED_SKELETONS.has(sk.replace(/[^\p{L}\p{N}]/gu, "")) || sk.split(/[^\p{L}\p{N}]+/u).some((word) => RESERVED_SKELETONS.has(word)),
  );
}

/**
 * How a user is named in the prompt: their sanitized name; `unknown` without
 * one; and `user "<name>"` when the name reads as a reserved label (a user
 * called "agent" is never `agent`). Names never contain `"`, so that form
 * cannot be typed by anyone.
 */
export function userLabel(name: string | null | undefined): string {
  if (!name) return "unknown";
  let label = labels.get(name);
  if (label === undefined) {
    const clean = sanitizeName(name);
    label = !clean ? "unknown" : isReservedLookalike(clean) ? `user "${clean}"` : clean;
    // The same few names recur in every prompt: remember them (bounded).
    if (labels.size >= 1000) labels.clear();
    labels.set(name, label);
  }
  return label;
}
const labels = new Map<string, string>();

/**
 * The most of one message body the prompt carries, in code points of its canonical
 * form: the longest a platform sends (LINE: 5,000). Cut after normalizing, never
 * before: NFKC makes up to 18 characters of one (U+FDFA), so a cap on the raw text
 * would let ten legal messages grow the prompt fourteenfold.
 */
export const MAX_BODY_CHARS = 5000;

/** Canonical text cut to `maxChars` code points after normalizing (see MAX_BODY_CHARS). */
export function canonicalCapped(text: string, maxChars = MAX_BODY_CHARS): string {
  return truncate(canonicalText(text), maxChars);
}

/**
 * For message bodies (cut to `maxChars` after normalizing): canonical text, line breaks kept; a line that could be
 * read as structure (a header, an annotation, a role marker, or a look-alike
 * of one) gets a leading backslash, which the system prompt explains.
 */
export function sanitizeBody(text: string, maxChars = MAX_BODY_CHARS): string {
  return truncate(canonicalText(text), maxChars)
    .split("\n")
    .map((line) => (readsAsStructure(line) ? `\\${line}` : line))
    .join("\n");
}
