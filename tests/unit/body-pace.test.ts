import { describe, expect, it } from "vitest";
import { BodyPace } from "@/lib/http/body-pace";

describe("a request body's minimum pace", () => {
  const rate = { bytesPerSecond: 1000, windowMs: 10_000 };

  it("judges nothing before a window ends, then whether the window carried its share", () => {
    const pace = new BodyPace(rate, 0);
    expect(pace.checkAt).toBe(10_000);
    // Nothing arrived yet, but the window is not over.
    expect(pace.keepsPace(9_999)).toBe(true);
    pace.add(10_000);
    expect(pace.keepsPace(10_000)).toBe(true);
    // The next window starts where that one was judged.
    expect(pace.checkAt).toBe(20_000);
    pace.add(9_999);
    expect(pace.keepsPace(20_000)).toBe(false);
  });

  it("a byte every five seconds never keeps a pace an idle timeout would not see", () => {
    const pace = new BodyPace(rate, 0);
    pace.add(1);
    pace.add(1);
    expect(pace.keepsPace(10_000)).toBe(false);
  });

  it("a window judged late is judged over its true length, not more leniently", () => {
    const pace = new BodyPace(rate, 0);
    pace.add(12_000);
    // 15 s passed: 12,000 bytes is 800 B/s.
    expect(pace.keepsPace(15_000)).toBe(false);
  });
});
