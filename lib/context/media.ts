import type { Settings } from "../settings/schema";
import type { AttachmentFact } from "../db/context-facts";
import type { ContextMessage } from "./types";

/**
 * Which of the context's pictures the model is given as images: what it sees is
 * decided here with the rest of the context, from stored facts and settings.
 */

/** Pictures a model takes as an image: photos, image documents and static stickers (animated and video ones are not still images). */
export function isPicture(a: Pick<AttachmentFact, "kind" | "mimeType" | "details">): boolean {
  if (a.kind === "photo") return true;
  if (a.kind === "document") return /^image\/(jpeg|png|webp|gif)$/.test(a.mimeType ?? "");
  if (a.kind === "sticker") return (a.details as { format?: unknown } | null)?.format === "static";
  return false;
}

/** A picture that is here or may still come: the fetch job has not given up on it. */
const mayHaveBytes = (a: AttachmentFact) => a.status === "stored" || a.status === "pending";

/**
 * With `modelSeesImages` on, the newest pictures of users' messages in the context
 * (the message answered first), up to `maxImagesPerTurn`; older ones keep their
 * text line only. Only users' turns carry images (providers take none in an
 * assistant's). Per message id, in the message's order.
 */
export function imagesForModel(
  messages: readonly ContextMessage[],
  settings: Partial<Pick<Settings, "maxImagesPerTurn" | "modelSeesImages">>,
): Map<number, AttachmentFact[]> {
  const out = new Map<number, AttachmentFact[]>();
  let left = settings.modelSeesImages ? (settings.maxImagesPerTurn ?? 4) : 0;
  for (let i = messages.length - 1; i >= 0 && left > 0; i--) {
    const m = messages[i];
    if (m.senderKind !== "user" || m.deletedAt) continue;
    const pictures = (m.attachments ?? []).filter((a) => isPicture(a) && mayHaveBytes(a));
    const taken = pictures.slice(-left);
    if (taken.length === 0) continue;
    out.set(m.id, taken);
    left -= taken.length;
  }
  return out;
}

/**
 * Whether the provider sees images when the setting is left to it (null): OpenAI,
 * Anthropic and Google do, and the sandbox's demo model (it says what it was given);
 * an OpenAI-compatible server often does not.
 */
export function providerSeesImages(provider: string): boolean {
  return provider === "openai" || provider === "anthropic" || provider === "google" || provider === "demo";
}
