"use client";

import { useEffect, useRef, useState } from "react";
import type { AttachmentView } from "./types";

/** The box a thumbnail takes, reserved before it loads (the virtualized timeline measures rows once: nothing may jump). */
const THUMB_BOX = 240;

export function fileSize(bytes: number | null): string {
  if (bytes === null) return "";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function duration(seconds: number | null): string {
  if (seconds === null) return "";
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

const RASTER = /^image\/(jpeg|png|webp|gif)$/;
const isImage = (a: AttachmentView) => a.url !== null && RASTER.test(a.mimeType ?? "");
const isAudio = (a: AttachmentView) => a.url !== null && (a.kind === "voice" || a.kind === "audio" || /^audio\//.test(a.mimeType ?? ""));
const isVideo = (a: AttachmentView) =>
  a.url !== null && /^video\//.test(a.mimeType ?? "") && ["video", "video_note", "animation", "document"].includes(a.kind);

/** Width and height that fit the box, keeping the picture's shape (a square when the size is unknown). */
function fitted(a: AttachmentView): { width: number; height: number } {
  if (!a.width || !a.height) return { width: THUMB_BOX, height: THUMB_BOX };
  const scale = Math.min(1, THUMB_BOX / Math.max(a.width, a.height));
  return { width: Math.max(24, Math.round(a.width * scale)), height: Math.max(24, Math.round(a.height * scale)) };
}

/** What the kind is called in a sentence ("video note", not "video_note"). */
const kindName = (a: AttachmentView) => a.kind.replace("_", " ");

/** Not here (yet): downloading, too large, failed or unsupported, with the reason. */
function StatusChip({ a }: { a: AttachmentView }) {
  const what = `${kindName(a)}${a.fileName ? ` ${a.fileName}` : ""}`;
  const text =
    a.status === "pending"
      ? `${what}: downloading…`
      : a.status === "too_large"
        ? `${what} too large to download${a.sizeBytes ? ` (${fileSize(a.sizeBytes)})` : ""}`
        : a.status === "failed"
          ? `${what} failed${a.error ? `: ${a.error}` : ""}`
          : `${what} not available${a.error ? `: ${a.error}` : ""}`;
  return (
    <div className={`attachment-chip ${a.status === "pending" ? "" : "warn"}`} data-testid="attachment-status" data-status={a.status}>
      {text}
    </div>
  );
}

/** The big picture, in a modal dialog: Esc or the button closes it. */
function ImageViewer({ a, onClose }: { a: AttachmentView; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);
  return (
    <dialog ref={dialog} className="image-viewer" aria-label={a.fileName ?? "Image"} data-testid="image-viewer" onClose={onClose}>
      {/* biome-ignore lint/performance/noImgElement: an authenticated API file, not a static asset for next/image. */}
      <img src={a.url!} alt={a.fileName ?? `${kindName(a)} ${a.id}`} />
      <div className="row">
        <a href={a.url!} download={a.fileName ?? `image-${a.id}`}>
          Download
        </a>
        <button type="button" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </div>
    </dialog>
  );
}

/**
 * A message's files as the console shows them: thumbnails (lazy, their box reserved)
 * that open a viewer, audio and video players with the transcript under them, file
 * chips with name, size and a download link, and the state of what is not here.
 */
export function Attachments({ items }: { items: AttachmentView[] }) {
  const [viewing, setViewing] = useState<AttachmentView | null>(null);
  if (items.length === 0) return null;
  return (
    <div className="attachments" data-testid="attachments">
      {items.map((a) => {
        if (a.status !== "stored" || !a.url) return <StatusChip key={a.id} a={a} />;
        if (isImage(a)) {
          const size = fitted(a);
          return (
            <button
              key={a.id}
              type="button"
              className="attachment-thumb"
              style={size}
              onClick={() => setViewing(a)}
              aria-label={`Open ${a.fileName ?? kindName(a)}`}
              data-testid="attachment-thumb"
            >
              {/* biome-ignore lint/performance/noImgElement: an authenticated API file, not a static asset for next/image. */}
              <img src={`${a.url}?size=thumb`} alt={a.fileName ?? kindName(a)} loading="lazy" decoding="async" {...size} />
            </button>
          );
        }
        if (isAudio(a) || isVideo(a)) {
          const video = isVideo(a);
          const size = video ? fitted(a) : undefined;
          return (
            <figure key={a.id} className="attachment-player" data-testid={video ? "attachment-video" : "attachment-audio"}>
              {video ? (
                <video src={a.url} controls preload="metadata" {...size} />
              ) : (
                // biome-ignore lint/a11y/useMediaCaption: the transcript is under it.
                <audio src={a.url} controls preload="none" />
              )}
              <figcaption className="muted">
                {kindName(a)}
                {a.durationSeconds !== null ? ` ${duration(a.durationSeconds)}` : ""}
                {a.fileName ? ` · ${a.fileName}` : ""}
              </figcaption>
              {a.transcript && (
                <blockquote className="transcript" data-testid="transcript" dir="auto">
                  {a.transcript}
                </blockquote>
              )}
            </figure>
          );
        }
        return (
          <a
            key={a.id}
            className="attachment-chip file"
            href={a.url}
            download={a.fileName ?? `${a.kind}-${a.id}`}
            data-testid="attachment-file"
            title="Download"
          >
            <span aria-hidden="true">📄</span> {a.fileName ?? kindName(a)}
            <span className="muted"> · {[a.mimeType, fileSize(a.sizeBytes)].filter(Boolean).join(", ")} · download</span>
          </a>
        );
      })}
      {viewing && <ImageViewer a={viewing} onClose={() => setViewing(null)} />}
    </div>
  );
}
