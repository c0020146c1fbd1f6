import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { downloadBytes, isPrivateAddress } from "@/lib/media/fetch-http";

describe("external media URLs", () => {
  it("tells private, loopback, link-local and mapped addresses from public ones", () => {
    for (const address of [
      "10.1.2.3",
      "127.0.0.1",
      "169.254.169.254",
      "172.20.0.1",
      "192.168.1.1",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fd00::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "not-an-ip",
    ])
      expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ["93.184.216.34", "149.154.167.220", "2001:4860:4860::8888", "::ffff:8.8.8.8"])
      expect(isPrivateAddress(address), address).toBe(false);
  });

  it("refuses before any request: not https, a private address literal, another scheme", async () => {
    const options = { maxBytes: 1024, signal: AbortSignal.timeout(1_000), untrusted: true, label: "the host" };
    expect(await downloadBytes("http://example.com/a.jpg", options)).toEqual({
      ok: false,
      outcome: "failed",
      reason: "the host: only https URLs are fetched",
    });
    expect(await downloadBytes("https://169.254.169.254/latest/meta-data", options)).toEqual({
      ok: false,
      outcome: "failed",
      reason: "the host: the URL points at a private address",
    });
    expect(await downloadBytes("https://[::1]/a.jpg", options)).toMatchObject({ outcome: "failed" });
    expect(await downloadBytes("file:///etc/passwd", options)).toEqual({
      ok: false,
      outcome: "failed",
      reason: "the host: file: URLs are not fetched",
    });
    expect(await downloadBytes("not a url", options)).toEqual({ ok: false, outcome: "failed", reason: "the host: not a valid URL" });
  });

  it("refuses a name that resolves to a private address, at connect time (no request is made)", async () => {
    const result = await downloadBytes("https://localhost:9/a.jpg", {
      maxBytes: 1024,
      signal: AbortSignal.timeout(2_000),
      untrusted: true,
      label: "the host",
    });
    expect(result).toEqual({ ok: false, outcome: "failed", reason: "the host: localhost resolves to a private address" });
  });
});

describe("a platform's download redirected elsewhere", () => {
  it("carries the token on the platform's own origin only, never to the host it is sent on to", async () => {
    const seen: { host: string; authorization: string | undefined }[] = [];
    const other = createServer((req, res) => {
      seen.push({ host: "other", authorization: req.headers.authorization });
      res.end("bytes");
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const otherPort = (other.address() as AddressInfo).port;
    const platform = createServer((req, res) => {
      seen.push({ host: "platform", authorization: req.headers.authorization });
      if (req.url === "/content") {
        res.writeHead(302, { location: "/moved" });
        return res.end();
      }
      res.writeHead(302, { location: `http://127.0.0.1:${otherPort}/stolen` });
      res.end();
    });
    await new Promise<void>((resolve) => platform.listen(0, "127.0.0.1", resolve));
    const port = (platform.address() as AddressInfo).port;
    try {
      const result = await downloadBytes(`http://127.0.0.1:${port}/content`, {
        headers: { authorization: "Bearer platform-token" },
        maxBytes: 1024,
        signal: AbortSignal.timeout(5_000),
        label: "LINE",
      });
      expect(result).toMatchObject({ ok: true });
      expect(seen).toEqual([
        { host: "platform", authorization: "Bearer platform-token" },
        { host: "platform", authorization: "Bearer platform-token" },
        { host: "other", authorization: undefined },
      ]);
    } finally {
      platform.close();
      other.close();
    }
  });
});
