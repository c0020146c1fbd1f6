import { execFile } from "node:child_process";
import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const TOKEN = "123456789:AAH-very-secret-token-value_xyz";

async function cli(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { env: { ...process.env, ...env }, timeout: 40_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("CLIs fail with one line and no secrets", () => {
  it("telegram:webhook with a Bot API that refuses connections", async () => {
    const result = await cli(["scripts/telegram-webhook.mjs", "--info"], {
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: "http://127.0.0.1:9",
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: .*getWebhookInfo.*ECONNREFUSED/);
    expect(result.stderr + result.stdout).not.toContain(TOKEN);
    expect(result.stderr + result.stdout).not.toContain("AAH-very-secret");
  });

  it("telegram:webhook with a Bot API that accepts and never answers ends within its time limit", async () => {
    const sockets: Socket[] = [];
    const server = createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const result = await cli(["scripts/telegram-webhook.mjs", "--info"], {
        TELEGRAM_BOT_TOKEN: TOKEN,
        TELEGRAM_API_ROOT: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      });
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr + result.stdout).not.toContain("AAH-very-secret");
    } finally {
      for (const s of sockets) s.destroy();
      server.close();
    }
  }, 45_000);

  it("the envelope CLI with an unreachable server", async () => {
    const result = await cli(["scripts/envelope.mjs", "show", "--envelope-id", "1"], {
      SWITCHBOARD_URL: "http://127.0.0.1:9",
      SWITCHBOARD_API_TOKEN: "a-very-secret-api-token-123",
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("cannot reach http://127.0.0.1:9");
    expect(result.stderr).not.toContain("a-very-secret-api-token-123");
  });
});
