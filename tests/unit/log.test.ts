import { describe, expect, it } from "vitest";
import { redact } from "@/lib/log";

describe("log redaction", () => {
  it("hides values whose keys name secrets, at any depth, and keeps the rest", () => {
    const out = redact({
      TELEGRAM_BOT_TOKEN: "123:abc",
      nested: { apiKey: "sk-1", password: "p", headers: { Authorization: "Bearer x", cookie: "sb_session=1" } },
      chatId: 42,
      text: "hello",
    });
    expect(out).toEqual({
      TELEGRAM_BOT_TOKEN: "[redacted]",
      nested: { apiKey: "[redacted]", password: "[redacted]", headers: { Authorization: "[redacted]", cookie: "[redacted]" } },
      chatId: 42,
      text: "hello",
    });
    expect(JSON.stringify(out)).not.toMatch(/123:abc|sk-1|Bearer x/);
  });
  it("reduces errors to name and message", () => {
    expect(redact(new TypeError("boom"))).toEqual({ name: "TypeError", message: "boom" });
  });
});
