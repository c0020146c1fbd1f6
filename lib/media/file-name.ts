/**
 * Control characters (C0, C1, line and paragraph separators) and invisible format characters
 * (\p{Cf}: zero-width ones, tags, the BOM, and the bidirectional controls, which reorder what
 * follows them on screen so `invoice\u202Efdp.exe` reads `invoiceexe.pdf`): a file name shows
 * none of them, and they can pad or hide its extension.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u2028\u2029]|\p{Cf}/gu;

/**
 * A file name as a sender or an operator gave it, made fit to store and show: no
 * control characters, no bidirectional controls, trimmed. "" when nothing is left.
 * Names are cleaned at intake, and again when served and listed (rows stored before).
 *
 * @example cleanFileName(" invoice\u202Efdp.exe\n") // "invoicefdp.exe"
 */
export function cleanFileName(name: string): string {
  return name.toWellFormed().replace(CONTROLS, "").trim();
}
