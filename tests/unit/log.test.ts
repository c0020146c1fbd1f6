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
  it("removes bot tokens from text, e.g. a Bot API URL in an error message", () => {
    const out = redact({
      error: new Error("request to https://api.telegram.org/bot123456:AAH-secret_x/getMe failed"),
      url: "/bot99:zz-top/sendMessage",
      // A server that quotes the URL escaped.
      echoed: "Not Found: /file/bot77%3AAAE-escaped/photos/file_1.jpg",
    });
    expect(JSON.stringify(out)).not.toMatch(/AAH-secret|zz-top|AAE-escaped/);
    expect(JSON.stringify(out)).toContain("bot[redacted]/getMe");
  });
});
