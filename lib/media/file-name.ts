/** Unicode's bidirectional controls: embeddings and overrides, isolates, and the LRM, RLM and ALM marks. */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/**
 * Control characters (C0, C1, line and paragraph separators) and invisible format characters
 * (zero-width ones, tags, the BOM; bidi controls are among them): a file name shows none of them,
 * and they can pad or hide its extension.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u2028\u2029]|\p{Cf}/gu;

/**
 * The text without bidirectional controls. They reorder what follows them on screen,
 * so a name can show another extension than it has: `invoice\u202Efdp.exe` reads
 * `invoiceexe.pdf`. A file name has no use for them.
 */
function withoutBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, "");
}

/**
 * A file name as a sender or an operator gave it, made fit to store and show: no
 * control characters, no bidirectional controls, trimmed. "" when nothing is left.
 * Names are cleaned at intake, and again when served and listed (rows stored before).
 *
 * @example cleanFileName(" invoice\u202Efdp.exe\n") // "invoicefdp.exe"
 */
export function cleanFileName(name: string): string {
  return withoutBidiControls(name.toWellFormed().replace(CONTROLS, "")).trim();
}
