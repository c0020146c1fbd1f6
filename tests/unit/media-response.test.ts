import { describe, expect, it } from "vitest";
import { fileResponse } from "@/lib/http/media";
import { cleanFileName } from "@/lib/media/file-name";
import { servedInline } from "@/lib/media/serve";
import { checkSignedMedia, signedMediaUrl } from "@/lib/media/signed-url";

const file = (fileName: string | null, inline = false) => ({
  body: Buffer.from("x"),
  sizeBytes: 1,
  contentType: inline ? "image/png" : "application/octet-stream",
  inline,
  fileName,
  etag: '"abc"',
});

describe("serving a stored file", () => {
  it("shows inline only raster images, audio and video (with codec parameters), never SVG, HTML, PDF or text", () => {
    for (const type of ["image/jpeg", "image/png", "image/webp", "image/gif", "audio/ogg; codecs=opus", "audio/x-m4a", "video/mp4"])
      expect(servedInline(type), type).toBe(true);
    for (const type of [
      "image/svg+xml",
      "text/html",
      "application/pdf",
      "text/plain",
      "application/octet-stream",
      "application/xml",
      "video/mp4; x=<script>",
    ])
      expect(servedInline(type), type).toBe(false);
  });

  it("a file name cannot add a parameter or a header to Content-Disposition", () => {
    const response = fileResponse(file('evil"; filename=x.html;\r\nSet-Cookie: a=b'), new Request("http://localhost/"));
    const disposition = response.headers.get("content-disposition")!;
    // CR and LF are removed (as from any stored name), the quote and semicolons replaced: no parameter, no header line.
    expect(disposition).toMatch(/^attachment; filename="evil__ filename=x\.html_Set-Cookie: a=b"; filename\*=UTF-8''evil%22%3B%20/);
    expect(disposition).toContain("x.html%3BSet-Cookie%3A%20a%3Db");
    expect(disposition).not.toMatch(/[\r\n]/);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(fileResponse(file("отчёт.pdf"), new Request("http://localhost/")).headers.get("content-disposition")).toContain(
      "filename*=UTF-8''%D0%BE%D1%82%D1%87%D1%91%D1%82.pdf",
    );
  });

  it("a file name cannot show another extension than it has: bidirectional controls are dropped from both parameters", () => {
    // U+202E shows what follows right to left: "invoice\u202Efdp.exe" reads "invoiceexe.pdf".
    const disposition = fileResponse(file("invoice\u202Efdp.exe"), new Request("http://localhost/")).headers.get("content-disposition");
    expect(disposition).toBe(`attachment; filename="invoicefdp.exe"; filename*=UTF-8''invoicefdp.exe`);
    const every = "a\u202Ab\u202Bc\u202Cd\u202De\u2066f\u2067g\u2068h\u2069i\u200Ej\u200Fk\u061Cl.txt";
    expect(fileResponse(file(every), new Request("http://localhost/")).headers.get("content-disposition")).toBe(
      `attachment; filename="abcdefghijkl.txt"; filename*=UTF-8''abcdefghijkl.txt`,
    );
    // Other scripts are kept: only the controls go.
    expect(fileResponse(file("عقد\u200F.pdf"), new Request("http://localhost/")).headers.get("content-disposition")).toContain(
      "filename*=UTF-8''%D8%B9%D9%82%D8%AF.pdf",
    );
  });

  it("a name stored before intake cleaning is served without its invisible characters (zero-width, C1 controls, U+2028)", () => {
    const disposition = (name: string) => fileResponse(file(name), new Request("http://localhost/")).headers.get("content-disposition");
    // U+200B and U+2028 would show in filename* as %E2%80%8B and %E2%80%A8; U+0085 and U+009B (C1) as %C2%85 and %C2%9B.
    expect(disposition("report\u200B.pdf")).toBe(`attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
    expect(disposition("re\u0085po\u009Brt.pdf")).toBe(`attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
    expect(disposition("report\u2028.pdf")).toBe(`attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
    // Nothing left of the name: no name at all, as at intake.
    expect(disposition("\u200B\u2028")).toBe("attachment");
  });

  it("a long name cut in the middle of an emoji, or holding half of one, is still served (was a 500)", () => {
    // 149 letters then an emoji: cutting at 150 UTF-16 units would keep half of it, and encodeURIComponent throws on that.
    const long = fileResponse(file(`${"a".repeat(149)}😀.pdf`), new Request("http://localhost/")).headers.get("content-disposition")!;
    expect(long).toContain(`filename*=UTF-8''${"a".repeat(149)}%F0%9F%98%80`);
    const broken = fileResponse(file("half\ud83d.pdf"), new Request("http://localhost/")).headers.get("content-disposition");
    expect(broken).toContain("filename*=UTF-8''half%EF%BF%BD.pdf");
  });

  it("filename* escapes what RFC 5987 does not allow bare (' ( ) *)", () => {
    const disposition = fileResponse(file("it's (final)*.txt"), new Request("http://localhost/")).headers.get("content-disposition");
    expect(disposition).toContain("filename*=UTF-8''it%27s%20%28final%29%2A.txt");
  });

  it("a stored name loses every invisible character that could pad or hide its extension", () => {
    const invisible = "\u200B\u200C\u200D\uFEFF\u2060\u00AD\u0085\u009B\u2028\u2029\u{E0041}";
    expect(cleanFileName(`report${invisible}.pdf`)).toBe("report.pdf");
    expect(cleanFileName("half\ud83d.pdf")).toBe("half\uFFFD.pdf");
    // Letters of any script stay.
    expect(cleanFileName("отчёт 2026 😀.pdf")).toBe("отчёт 2026 😀.pdf");
  });

  it("a signed link is good for its own file, variant and expiry only", () => {
    const sha = "a".repeat(64);
    const url = new URL(signedMediaUrl("https://example.org/base/", "k".repeat(32), sha, "original", 1_000_000));
    expect(url.pathname).toBe(`/base/api/media/${sha}`);
    const input = {
      sha256: sha,
      variant: url.searchParams.get("v"),
      expires: url.searchParams.get("exp"),
      sig: url.searchParams.get("sig"),
    };
    expect(checkSignedMedia("k".repeat(32), input, 1_000_000)).toEqual({ ok: true, variant: "original" });
    expect(checkSignedMedia("k".repeat(32), { ...input, variant: "preview" }, 1_000_000)).toEqual({ ok: false, reason: "forged" });
    expect(checkSignedMedia("k".repeat(32), { ...input, sha256: "b".repeat(64) }, 1_000_000)).toEqual({ ok: false, reason: "forged" });
    expect(checkSignedMedia("other-key".repeat(4), input, 1_000_000)).toEqual({ ok: false, reason: "forged" });
    expect(checkSignedMedia("k".repeat(32), input, 1_000_000 + 25 * 3600 * 1000)).toEqual({ ok: false, reason: "expired" });
  });

  it("a streamed file is let go when the client leaves before its body is piped (Next then never reads nor cancels it)", async () => {
    const streamed = () => {
      let cancelled = false;
      const cancel = () => {
        cancelled = true;
      };
      const body = new ReadableStream<Uint8Array>({ pull: () => {}, cancel }, { highWaterMark: 0 });
      return { file: { ...file("big.bin"), body }, body, cancelled: () => cancelled };
    };
    // The client went away while the route ran: the signal is already aborted.
    const gone = streamed();
    const aborted = new AbortController();
    aborted.abort();
    fileResponse(gone.file, new Request("http://localhost/", { signal: aborted.signal }));
    await Promise.resolve();
    expect(gone.cancelled()).toBe(true);
    // It goes away after the answer was made, before Next pipes the body.
    const later = streamed();
    const leaving = new AbortController();
    fileResponse(later.file, new Request("http://localhost/", { signal: leaving.signal }));
    expect(later.cancelled()).toBe(false);
    leaving.abort();
    await Promise.resolve();
    expect(later.cancelled()).toBe(true);
    // Being piped (locked), the stream is the pipe's to cancel: nothing throws, nothing is cancelled here.
    const piped = streamed();
    const client = new AbortController();
    fileResponse(piped.file, new Request("http://localhost/", { signal: client.signal }));
    piped.body.getReader();
    client.abort();
    await Promise.resolve();
    expect(piped.cancelled()).toBe(false);
  });
});
