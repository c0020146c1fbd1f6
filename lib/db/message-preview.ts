/** What a kind of file is called in a one-line preview. */
const KIND_WORDS: Record<string, string> = {
  photo: "Photo",
  video: "Video",
  animation: "GIF",
  audio: "Audio",
  voice: "Voice message",
  video_note: "Video message",
  document: "File",
  sticker: "Sticker",
};

/**
 * A message's one-line preview (the conversation list, the CSV): its text, else the file it
 * carries, as chat apps show one: "📎 invoice.pdf", "Photo", "Sticker 😀". A message with
 * neither previews as "".
 *
 * @example messagePreview("", { kind: "document", fileName: "invoice.pdf" }) // "📎 invoice.pdf"
 */
export function messagePreview(text: string, file: { kind: string; fileName: string | null; emoji?: string | null } | null): string {
  if (text.trim() || !file) return text;
  if (file.fileName) return `📎 ${file.fileName}`;
  const word = KIND_WORDS[file.kind] ?? "File";
  return file.emoji ? `${word} ${file.emoji}` : word;
}
