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

  it("judges an IPv6 address that carries an IPv4 address (NAT64, 6to4, mapped) by that IPv4, and refuses the other special ranges", () => {
    for (const address of [
      // NAT64, well-known prefix: 127.0.0.1, 10.0.0.1, the cloud metadata address.
      "64:ff9b::7f00:1",
      "64:ff9b::10.0.0.1",
      "64:ff9b::a9fe:a9fe",
      "64:ff9b:0:0:0:0:169.254.169.254",
      // NAT64, local-use prefix: where the IPv4 sits is the local network's choice.
      "64:ff9b:1::a00:1",
      "64:ff9b:1:ffff::808:808",
      // 6to4: 127.0.0.1, 192.168.1.1, 10.1.2.3.
      "2002:7f00:1::",
      "2002:c0a8:101::1",
      "2002:a01:203::1",
      // IPv4-mapped in every spelling, IPv4-compatible, IPv4-translated.
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::FFFF:7F00:1",
      "0:0:0:0:0:ffff:7f00:1",
      "::ffff:a9fe:a9fe",
      "::127.0.0.1",
      "::ffff:0:7f00:1",
      // Teredo, benchmarking, documentation, link-local with a zone, multicast, discard-only.
      "2001:0:4136:e378:8000:63bf:3fff:fdd2",
      "2001:2::1",
      "2001:db8::1",
      "3fff::1",
      "fe80::1%eth0",
      "ff02::1",
      "100::1",
      // IPv4 documentation and protocol-assignment ranges.
      "192.0.2.1",
      "198.51.100.7",
      "203.0.113.9",
      "192.0.0.8",
    ])
      expect(isPrivateAddress(address), address).toBe(true);
    // A NAT64 or 6to4 address of a public IPv4 reaches that public host: allowed.
    for (const address of ["64:ff9b::8.8.8.8", "64:ff9b::808:808", "2002:808:808::1", "2606:4700::1111", "2a00:1450:4001:80b::200e"])
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
    for (const literal of ["[64:ff9b::7f00:1]", "[64:ff9b::10.0.0.1]", "[2002:c0a8:101::1]", "[::ffff:7f00:1]"])
      expect(await downloadBytes(`https://${literal}/a.jpg`, options), literal).toEqual({
        ok: false,
        outcome: "failed",
        reason: "the host: the URL points at a private address",
      });
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
