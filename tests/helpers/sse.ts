/** Reads SSE frames from a response body until `match` accepts one (or the stream ends). */
export async function readUntil(body: ReadableStream<Uint8Array>, match: (frame: string) => boolean) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const frames: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { frames, found: null, ended: true };
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        frames.push(frame);
        if (match(frame)) return { frames, found: frame, ended: false };
      }
    }
  } finally {
    reader.releaseLock();
  }
}
