import type { AttachmentFact, StoredMessage } from "../db/context-facts";
import { canonicalText, MAX_BODY_CHARS, sanitizeInline } from "./sanitize";

/**
 * The prompt's one honest line per attachment or shared item: the product's own
 * structure, written from stored facts, never escaped (a user's text is: a body
 * line that starts with `[` gets a backslash, so it can never pose as one of these).
 * Everything in them a sender chose (a file name, a sticker's set, a place's name,
 * a poll, a transcript) is quoted and sanitized like a reply's quote, so it cannot
 * close the quote or the bracket. Examples:
 *
 *     [photo 1280×960]
 *     [voice 0:07] "see you at eight"
 *     [document "report.pdf", 2.1 MB]
 *     [sticker 😀 from "Cats"]
 *     [location 35.68, 139.76 "Tokyo Station"]
 *     [poll "Lunch?" options: "Sushi" / "Ramen"]
 *     [file too large to download: 31 MB video]
 */

/** Names a sender chose are cut here; a transcript gets a message body's length. */
const NAME_CHARS = 120;

const quoted = (text: string, max = NAME_CHARS) => `"${sanitizeInline(text, max)}"`;

/** `0:07`, `3:12`, `1:02:03`. */
export function clockDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
}

/** `512 bytes`, `48 KB`, `2.1 MB`, `31 MB`. */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  const mb = bytes / (1024 * 1024);
  return `${mb < 10 ? mb.toFixed(1).replace(/\.0$/, "") : Math.round(mb)} MB`;
}

const EMOJI_PART = /^[\p{Extended_Pictographic}\p{Emoji_Component}]$/u;

/** An emoji as shown: emoji code points only (a sticker's emoji is the sticker maker's choice). */
function emojiOnly(text: unknown): string {
  if (typeof text !== "string") return "";
  // Canonical first: tag characters and other invisibles (also Emoji_Component) are gone.
  return [...canonicalText(text)]
    .filter((ch) => EMOJI_PART.test(ch) && !/[#*0-9]/.test(ch))
    .slice(0, 8)
    .join("");
}

const KIND_WORDS: Record<string, string> = {
  photo: "photo",
  video: "video",
  animation: "animation",
  audio: "audio",
  voice: "voice",
  video_note: "video note",
  document: "document",
  sticker: "sticker",
};
const str = (v: unknown) => (typeof v === "string" && v.trim() ? v : undefined);

/** One attachment's line. */
export function attachmentLine(a: AttachmentFact): string {
  const kind = KIND_WORDS[a.kind] ?? "file";
  if (a.status === "too_large") return `[file too large to download: ${a.sizeBytes ? `${byteSize(a.sizeBytes)} ` : ""}${kind}]`;
  const details = a.details ?? {};
  const fields: string[] = [];
  let head = kind;
  if (a.kind === "sticker") {
    const format = str(details.format);
    if (format === "animated" || format === "video") head = `${format} sticker`;
    const emoji = emojiOnly(details.emoji);
    const set = str(details.setName);
    const words = Array.isArray(details.keywords) ? details.keywords.filter((k): k is string => typeof k === "string").slice(0, 5) : [];
    const label = str(details.text) ?? (words.length ? words.join(", ") : undefined);
    return `[${[head, emoji, set ? `from ${quoted(set)}` : "", label ? quoted(label) : ""].filter(Boolean).join(" ")}${statusNote(a)}]`;
  }
  if (a.kind === "audio") {
    const title = [str(details.performer), str(details.title)].filter(Boolean).join(" – ");
    if (title) fields.push(quoted(title));
    else if (a.fileName) fields.push(quoted(a.fileName));
  } else if (a.kind === "document" && a.fileName) fields.push(quoted(a.fileName));
  if (a.durationSeconds !== null && ["video", "animation", "audio", "voice", "video_note"].includes(a.kind))
    fields.push(clockDuration(a.durationSeconds));
  if (a.width && a.height && ["photo", "video", "animation"].includes(a.kind)) fields.push(`${a.width}×${a.height}`);
  let line = `[${head}${fields.length ? ` ${fields.join(" ")}` : ""}`;
  if (a.kind === "document" && a.sizeBytes !== null) line += `, ${byteSize(a.sizeBytes)}`;
  line += `${statusNote(a)}]`;
  if (a.transcript?.trim()) line += ` ${quoted(a.transcript, MAX_BODY_CHARS)}`;
  return line;
}

/** What the model should know about bytes it cannot have. */
function statusNote(a: AttachmentFact): string {
  if (a.status === "failed") return ", could not be downloaded";
  if (a.status === "unsupported" && a.kind !== "sticker") return ", cannot be downloaded";
  return "";
}

const coordinate = (n: number) => (Math.round(n * 100) / 100).toString();

/** A shared item's line (Message.shared), or null for a shape we do not know. */
export function sharedLine(shared: unknown): string | null {
  if (!shared || typeof shared !== "object") return null;
  const s = shared as Record<string, unknown>;
  switch (s.type) {
    case "location": {
      if (typeof s.latitude !== "number" || typeof s.longitude !== "number") return null;
      const names = [str(s.title), str(s.address)].filter((v): v is string => v !== undefined).map((v) => quoted(v));
      return `[location ${coordinate(s.latitude)}, ${coordinate(s.longitude)}${names.length ? ` ${names.join(", ")}` : ""}]`;
    }
    case "contact": {
      const name = str(s.name);
      const phone = str(s.phoneNumber);
      return `[contact${name ? ` ${quoted(name)}` : ""}${phone ? ` phone ${quoted(phone, 40)}` : ""}]`;
    }
    case "poll": {
      const options = Array.isArray(s.options) ? s.options.filter((o): o is string => typeof o === "string").slice(0, 12) : [];
      return `[poll ${quoted(str(s.question) ?? "")} options: ${options.map((o) => quoted(o, 80)).join(" / ") || "none"}]`;
    }
    case "dice": {
      const emoji = emojiOnly(s.emoji) || "🎲";
      return `[dice ${emoji} ${typeof s.value === "number" ? `rolled ${s.value}` : "rolled"}]`;
    }
    case "other": {
      const kind = (str(s.kind) ?? "message").replace(/[^a-z_]/gi, "").replaceAll("_", " ") || "message";
      const title = str(s.title);
      return `[${kind}${title ? ` ${quoted(title)}` : ""}: not shown here]`;
    }
    default:
      return null;
  }
}

/** Every media line of a message, in order: its files, then what it shares. */
export function mediaLines(message: Pick<StoredMessage, "attachments" | "shared">): string[] {
  const lines = (message.attachments ?? []).map(attachmentLine);
  const shared = sharedLine(message.shared);
  if (shared) lines.push(shared);
  return lines;
}
