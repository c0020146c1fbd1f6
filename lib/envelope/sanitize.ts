/**
 * The prompt sanitizer. User-controlled text (names, quotes, bodies) must not be
 * able to pose as the prompt's own structure: envelope headers, reply
 * annotations, chat-template role markers, or invisible control characters.
 */

// C0/C1 controls except tab and newline, zero-width and bidi-override characters.
const INVISIBLE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
// Chat-template tokens such as <|im_start|>, <|system|>, <|endoftext|>.
const TEMPLATE_TOKEN = /<\|[^|>]{0,40}\|>/g;
// Lines that would read as our header or annotation, or as a role marker.
const STRUCTURAL_LINE = /^(\s*)(---|\[↩|\[\s*(system|assistant|user|developer|tool)\b|(system|assistant|developer|tool)\s*:)/i;

/** For one-line fields (names, quoted text): one line, no brackets or double quotes. */
export function sanitizeInline(text: string, maxChars?: number): string {
  let out = text
    .replace(TEMPLATE_TOKEN, " ")
    .replace(INVISIBLE, "")
    .replace(/[\r\n\t\u2028\u2029]+/g, " ")
    .replace(/"/g, "'")
    .replace(/\[/g, "(")
    .replace(/\]/g, ")")
    .replace(/ {2,}/g, " ")
    .trim();
  if (maxChars !== undefined && out.length > maxChars) out = out.slice(0, maxChars) + "...";
  return out;
}

/** A display name: inline-safe and short. */
export function sanitizeName(name: string | null | undefined): string | undefined {
  const clean = name ? sanitizeInline(name, 64) : "";
  return clean || undefined;
}

/** For message bodies: keeps line breaks, escapes lines that imitate structure. */
export function sanitizeBody(text: string): string {
  return text
    .replace(TEMPLATE_TOKEN, " ")
    .replace(INVISIBLE, "")
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => (STRUCTURAL_LINE.test(line) ? line.replace(STRUCTURAL_LINE, "$1\\$2") : line))
    .join("\n");
}
