import { describe, expect, it } from "vitest";
import { readRawBody } from "@/lib/http/respond";

/** A request whose body sends `chunks` (one per 10 ms) and then, unless `end`, stops sending without closing. */
function trickle(chunks: string[], end: boolean) {
  let cancelled = false;
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (i < chunks.length) {
        await new Promise((r) => setTimeout(r, 10));
        controller.enqueue(new TextEncoder().encode(chunks[i++]));
      } else if (end) controller.close();
      else await new Promise(() => {}); // stalls: never another byte
    },
    cancel() {
      cancelled = true;
    },
  });
  const request = new Request("http://localhost/api/v1/conversations/1/media", { method: "POST", body, duplex: "half" } as RequestInit);
  return { request, cancelled: () => cancelled };
}

describe("reading a request body", () => {
  it("a body that stops arriving is a 408 after the idle limit, and the stream is cancelled", async () => {
    const { request, cancelled } = trickle(["abc", "def"], false);
    const started = Date.now();
    await expect(readRawBody(request, 1 << 20, 100)).rejects.toMatchObject({ code: "request_timeout", status: 408 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(cancelled()).toBe(true);
  });

  it("a slow body that keeps sending is not cut by it (the limit is between bytes, not for the whole body)", async () => {
    const { request } = trickle(
      Array.from({ length: 20 }, (_, i) => String(i % 10)),
      true,
    );
    // 20 chunks 10 ms apart: 200 ms in all, longer than the 60 ms allowed between two of them.
    expect((await readRawBody(request, 1 << 20, 60)).toString()).toBe("01234567890123456789");
  });
});
