import { describe, expect, it } from "vitest";
import { buildNotice, buildProgress, consoleUrl, readyLines } from "@/lib/http/console-url.mjs";

describe("what npm start prints", () => {
  it("names the console's address: localhost for every interface, the host as given otherwise", () => {
    expect(consoleUrl(undefined, "3000")).toBe("http://localhost:3000");
    expect(consoleUrl("0.0.0.0", "3000")).toBe("http://localhost:3000");
    expect(consoleUrl("::", "4000")).toBe("http://localhost:4000");
    expect(consoleUrl("127.0.0.1", "8080")).toBe("http://127.0.0.1:8080");
    expect(consoleUrl("::1", "8080")).toBe("http://[::1]:8080");
  });

  it("points a fresh install at the setup page with its code, else at the console", () => {
    expect(readyLines("http://localhost:3000", "ABCDE-FGHJK-LMNPQ")).toEqual([
      "[start] ready: open http://localhost:3000/setup and enter the setup code ABCDE-FGHJK-LMNPQ",
    ]);
    expect(readyLines("http://localhost:3000", null)).toEqual(["[start] ready: open http://localhost:3000/"]);
  });

  it("says the first start builds and how long that takes, then counts the minutes", () => {
    expect(buildNotice(true)).toMatch(/first start: building .*about 4 minutes/);
    expect(buildNotice(false)).toMatch(/sources changed/);
    expect(buildProgress(75_400)).toBe("[start] still building… 1 min 15 s");
  });
});
