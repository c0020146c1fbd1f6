/**
 * The duration of an MP4 / M4A file, from its movie header (`moov/mvhd`): LINE's
 * audio message must say how long the audio is, and no dependency we ship reads
 * it. Null when the file has no readable header (not MP4, or truncated).
 */
export function mp4DurationSeconds(bytes: Uint8Array): number | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const box = (from: number, to: number, type: string): { start: number; end: number } | null => {
    for (let at = from; at + 8 <= to; ) {
      let size = view.getUint32(at);
      let header = 8;
      if (size === 1 && at + 16 <= to) {
        size = Number(view.getBigUint64(at + 8));
        header = 16;
      } else if (size === 0) size = to - at;
      if (size < header || at + size > to) return null;
      const name = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!);
      if (name === type) return { start: at + header, end: at + size };
      at += size;
    }
    return null;
  };
  try {
    const moov = box(0, bytes.byteLength, "moov");
    const mvhd = moov && box(moov.start, moov.end, "mvhd");
    if (!mvhd) return null;
    const version = view.getUint8(mvhd.start);
    const timescale = view.getUint32(mvhd.start + (version === 1 ? 20 : 12));
    const duration = version === 1 ? Number(view.getBigUint64(mvhd.start + 24)) : view.getUint32(mvhd.start + 16);
    if (!timescale) return null;
    return duration / timescale;
  } catch {
    return null;
  }
}
