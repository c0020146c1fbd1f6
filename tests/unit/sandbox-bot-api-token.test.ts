import { afterAll, describe, expect, it, vi } from "vitest";
import { sha256Of } from "@/lib/media/blob-store";

// Records the root and token the sandbox starts its own Bot API with, to knock on it as another local program would.
const started = vi.hoisted(() => [] as { token: string; root: Promise<string>; close: () => Promise<void> }[]);
vi.mock("@/lib/channels/telegram/sandbox-bot-api", async (importOriginal) => {
  const original = await importOriginal<typeof import("@/lib/channels/telegram/sandbox-bot-api")>();
  return {
    ...original,
    startSandboxBotApi: (token: string, read: (sha256: string) => Promise<Uint8Array | null>) => {
      const api = original.startSandboxBotApi(token, read);
      started.push({ token, root: api.then((a) => a.root), close: () => api.then((a) => a.close()) });
      return api;
    },
  };
});

const { createTelegramChannel } = await import("@/lib/channels/telegram/adapter");

describe("the sandbox's own Bot API", () => {
  afterAll(async () => {
    for (const api of started) await api.close();
  });

  it("serves the stored files to this process only: a token of its own, not the well-known placeholder; a malformed path is a 404", async () => {
    const bytes = new TextEncoder().encode("a private file of some bot");
    const sha256 = sha256Of(bytes);
    const channel = createTelegramChannel({ sandboxUsername: "sandbox_bot", sandboxFiles: async (s) => (s === sha256 ? bytes : null) });
    const download = await channel.downloadMedia!({
      sourceRef: `sandbox_document_${sha256}`,
      maxBytes: 1_000_000,
      signal: new AbortController().signal,
    });
    expect(download.ok && sha256Of(download.bytes)).toBe(sha256);

    expect(started).toHaveLength(1);
    const root = await started[0].root;
    expect(started[0].token).not.toBe("0:sandbox");
    // Another program on the host that knows the port and the placeholder token gets nothing.
    expect((await fetch(`${root}/file/bot0:sandbox/documents/${sha256}.bin`)).status).toBe(404);
    const getFile = await fetch(`${root}/bot0:sandbox/getFile`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ file_id: `sandbox_document_${sha256}` }),
    });
    expect(getFile.status).toBe(404);
    expect((await fetch(`${root}/file/bot%E0%A4%A/documents/${sha256}.bin`)).status).toBe(404);
  });
});
