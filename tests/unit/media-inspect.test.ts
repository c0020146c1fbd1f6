import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { imageForModel, thumbnail } from "@/lib/media/image";
import { inspectBytes } from "@/lib/media/inspect";

async function jpeg(width: number, height: number, exif = false): Promise<Buffer> {
  let image = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } }).jpeg();
  if (exif) image = image.withExif({ IFD0: { Make: "TestCam" }, IFD3: { GPSLatitudeRef: "N", GPSLatitude: "35/1 40/1 0/1" } });
  return image.toBuffer();
}

/** A PNG header that declares 100,000 × 100,000 pixels: a few bytes that would decode to 30 GB. */
function pngBomb(): Buffer {
  const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
  png.writeUInt32BE(100_000, 16);
  png.writeUInt32BE(100_000, 20);
  return png;
}

describe("inspectBytes", () => {
  it("takes a real JPEG as a photo, with its size, whatever the sender called it", async () => {
    expect(await inspectBytes(await jpeg(640, 480), "photo")).toEqual({
      ok: true,
      mimeType: "image/jpeg",
      family: "image",
      width: 640,
      height: 480,
    });
  });

  it("refuses a photo whose bytes are not an image", async () => {
    const pdf = Buffer.from("%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n");
    const result = await inspectBytes(pdf, "photo");
    expect(result).toMatchObject({ ok: false });
    expect(!result.ok && result.reason).toContain("application/pdf");
  });

  it("refuses a decompression bomb by its declared size, before decoding it", async () => {
    const result = await inspectBytes(pngBomb(), "photo");
    expect(!result.ok && result.reason).toMatch(/100000×100000 pixels, over the limit/);
  });

  it("refuses a truncated image", async () => {
    const whole = await jpeg(800, 600);
    const result = await inspectBytes(whole.subarray(0, Math.floor(whole.length / 2)), "photo");
    expect(result.ok).toBe(false);
  });

  it("sees an SVG as a file, not an image, even sent as a document", async () => {
    const svg = Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    expect(await inspectBytes(svg, "document")).toEqual({ ok: true, mimeType: "image/svg+xml", family: "file" });
    expect((await inspectBytes(svg, "photo")).ok).toBe(false);
  });
});

describe("re-encoding", () => {
  it("downscales for the model to 1,568 px on the long side and drops EXIF and GPS", async () => {
    const original = await jpeg(4000, 3000, true);
    expect((await sharp(original).metadata()).exif).toBeDefined();
    const encoded = await imageForModel(original);
    expect([encoded.width, encoded.height]).toEqual([1568, 1176]);
    expect(encoded.mimeType).toBe("image/jpeg");
    const meta = await sharp(encoded.bytes).metadata();
    expect(meta.exif).toBeUndefined();
    expect([meta.width, meta.height]).toEqual([1568, 1176]);
  });

  it("never enlarges a small image, and makes a small thumbnail", async () => {
    const small = await imageForModel(await jpeg(300, 200));
    expect([small.width, small.height]).toEqual([300, 200]);
    const thumb = await thumbnail(await jpeg(1280, 960));
    expect([thumb.width, thumb.height]).toEqual([320, 240]);
  });
});
