/**
 * The duration of an OGG/Opus file (a Telegram voice note), from its container: the
 * last page's granule position (48 kHz samples, whatever the input rate) less the
 * encoder's pre-skip from the OpusHead header (RFC 7845). null when the bytes are
 * not OGG/Opus or hold no audio page.
 */
export function oggOpusDurationSeconds(bytes: Uint8Array): number | null {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (data.length < 47 || data.toString("latin1", 0, 4) !== "OggS") return null;
  // The first page holds the OpusHead packet: its segment table, then the packet.
  const headAt = 27 + data[26];
  if (data.toString("latin1", headAt, headAt + 8) !== "OpusHead") return null;
  const preSkip = data.readUInt16LE(headAt + 10);
  const last = data.lastIndexOf("OggS", data.length - 27, "latin1");
  if (last < 0) return null;
  const granule = data.readBigInt64LE(last + 6);
  if (granule <= 0n) return null;
  return Math.max(0, Number(granule) - preSkip) / 48_000;
}
