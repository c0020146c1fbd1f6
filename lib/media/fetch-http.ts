import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";
import type { MediaDownload } from "./types";

/**
 * One HTTP download of a media file, bounded in size and time: the file's bytes, or
 * why not as a value (never a throw). Shared by the channel adapters (Telegram's
 * file URL, LINE's content endpoint) and external providers' URLs.
 */
export type DownloadOptions = {
  headers?: Record<string, string>;
  maxBytes: number;
  signal: AbortSignal;
  /**
   * A URL anyone could have written (an external provider's originalContentUrl): https
   * only, and neither it nor a redirect may reach a private, loopback or link-local
   * address. Off for the platforms' own API roots, which the operator configured.
   */
  untrusted?: boolean;
  /** `untrusted` with plain http and private addresses allowed (tests on loopback: MEDIA_ALLOW_INSECURE_URLS). */
  allowInsecure?: boolean;
  /** What the failure reasons name ("Telegram", "LINE", "the provider"). */
  label: string;
  /** A status that means "not yet" rather than the file (LINE's 202 while a video is prepared). */
  notReady?: (response: IncomingMessage) => string | null;
};

const MAX_REDIRECTS = 3;

/**
 * IPv4 ranges that are not globally reachable (IANA's special-purpose registry): the
 * server's own network and addresses nothing public lives at (SSRF).
 */
const PRIVATE_V4 = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const;

/**
 * The IPv6 a URL may reach: global unicast, and the two ranges that carry an IPv4
 * address the socket really reaches (IPv4-mapped `::ffff:0:0/96`, NAT64's well-known
 * `64:ff9b::/96`), judged by that IPv4 below. Everything else is refused: loopback,
 * unique-local, link-local, multicast, IPv4-compatible `::/96`, the local-use NAT64
 * prefix `64:ff9b:1::/48` (where its IPv4 sits is the local network's choice).
 */
const GLOBAL_V6 = new BlockList();
GLOBAL_V6.addSubnet("2000::", 3, "ipv6");
GLOBAL_V6.addSubnet("::ffff:0:0", 96, "ipv6");
GLOBAL_V6.addSubnet("64:ff9b::", 96, "ipv6");

/**
 * What is refused within those. BlockList matches an IPv4 rule against an IPv4-mapped
 * address however it is written (`::ffff:127.0.0.1`, `::ffff:7f00:1`); NAT64 and 6to4
 * addresses embed the IPv4 elsewhere, so each private IPv4 range is added again at
 * that place. BlockList parses every address checked; only this table's own constants
 * are rewritten here (`hexPair`).
 */
const PRIVATE = new BlockList();
for (const [net, prefix] of PRIVATE_V4) {
  PRIVATE.addSubnet(net, prefix, "ipv4");
  // NAT64 (RFC 6052): the IPv4 is the last 32 bits.
  PRIVATE.addSubnet(`64:ff9b::${net}`, 96 + prefix, "ipv6");
  // 6to4 (RFC 3056): 2002:AABB:CCDD::/48 reaches AA.BB.CC.DD.
  PRIVATE.addSubnet(`2002:${hexPair(net)}::`, 16 + prefix, "ipv6");
}
// Global unicast space that is not global: IETF protocol assignments (Teredo 2001::/32,
// whose IPv4 is obfuscated; benchmarking; ORCHID) and the documentation ranges.
for (const [net, prefix] of [
  ["2001::", 23],
  ["2001:db8::", 32],
  ["3fff::", 20],
] as const)
  PRIVATE.addSubnet(net, prefix, "ipv6");

/** An IPv4 address of the table above as the two hex groups IPv6 writes it in ("10.0.0.0" → "a00:0"). */
function hexPair(ipv4: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = ipv4.split(".").map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** True when a URL must not reach `address`: anything but a public unicast IPv4 or IPv6 address, or not an address at all. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, "ipv4");
  if (family !== 6) return true;
  return !GLOBAL_V6.check(address, "ipv6") || PRIVATE.check(address, "ipv6");
}

/**
 * A DNS lookup that refuses private addresses: checked on the address the socket
 * connects to, so a name that resolves differently the second time (DNS rebinding)
 * gains nothing.
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "", 0);
    const list = addresses as LookupAddress[];
    const allowed = list.filter((entry) => !isPrivateAddress(entry.address));
    if (allowed.length === 0) {
      const refused = Object.assign(new Error(`${hostname} resolves to a private address`), { code: "EPRIVATE" });
      return callback(refused, "", 0);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
    callback(null, allowed[0].address, allowed[0].family);
  });
};

/** Downloads `url` under the limits: see DownloadOptions. */
export async function downloadBytes(url: string, options: DownloadOptions): Promise<MediaDownload> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { ok: false, outcome: "failed", reason: `${options.label}: not a valid URL` };
  }
  let hopOptions = options;
  for (let hop = 0; ; hop++) {
    const refused = refusedUrl(target, options);
    if (refused) return { ok: false, outcome: "failed", reason: `${options.label}: ${refused}` };
    let response: IncomingMessage;
    try {
      response = await request(target, hopOptions);
    } catch (error) {
      return networkFailure(error, options);
    }
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.destroy();
      if (hop >= MAX_REDIRECTS) return { ok: false, outcome: "failed", reason: `${options.label}: too many redirects` };
      const next = new URL(response.headers.location, target);
      // A platform's token goes to the platform only: another origin gets none of our headers (as fetch does).
      if (next.origin !== target.origin) hopOptions = { ...options, headers: {} };
      target = next;
      continue;
    }
    const notReady = options.notReady?.(response);
    if (notReady) {
      response.destroy();
      return { ok: false, outcome: "retry", reason: `${options.label}: ${notReady}` };
    }
    if (status < 200 || status >= 300) {
      const detail = await shortBody(response);
      const reason = `${options.label} answered HTTP ${status}${detail ? `: ${detail}` : ""}`;
      // A 5xx, a 429 or a request timeout may pass; any other refusal will not.
      return { ok: false, outcome: status >= 500 || status === 429 || status === 408 ? "retry" : "failed", reason };
    }
    return readLimited(response, options);
  }
}

function refusedUrl(target: URL, options: DownloadOptions): string | null {
  if (target.protocol !== "https:" && target.protocol !== "http:") return `${target.protocol} URLs are not fetched`;
  if (!options.untrusted || options.allowInsecure) return null;
  if (target.protocol !== "https:") return "only https URLs are fetched";
  const host = target.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) && isPrivateAddress(host)) return "the URL points at a private address";
  return null;
}

function request(target: URL, options: DownloadOptions): Promise<IncomingMessage> {
  const client = target.protocol === "https:" ? https : http;
  const guard = options.untrusted && !options.allowInsecure;
  return new Promise((resolve, reject) => {
    const req = client.get(target, {
      headers: { "user-agent": "switchboard-media", ...options.headers },
      signal: options.signal,
      ...(guard ? { lookup: publicOnlyLookup } : {}),
    });
    req.once("response", resolve);
    req.once("error", reject);
  });
}

/**
 * Reads the body, stopping at the limit: a Content-Length over it is refused before
 * the first byte, and a body that runs past it (no or a false Content-Length) is cut
 * there, never buffered whole.
 */
async function readLimited(response: IncomingMessage, options: DownloadOptions): Promise<MediaDownload> {
  const announced = Number(response.headers["content-length"]);
  if (Number.isFinite(announced) && announced > options.maxBytes) {
    response.destroy();
    return { ok: false, outcome: "too_large", sizeBytes: announced };
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response) {
      total += (chunk as Buffer).byteLength;
      if (total > options.maxBytes) {
        response.destroy();
        return { ok: false, outcome: "too_large", sizeBytes: total };
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    return networkFailure(error, options);
  }
  if (!response.complete) return { ok: false, outcome: "retry", reason: `${options.label}: the download was cut off` };
  return { ok: true, bytes: Buffer.concat(chunks, total) };
}

function networkFailure(error: unknown, options: DownloadOptions): MediaDownload {
  const { code, name, message } = (error ?? {}) as { code?: string; name?: string; message?: string };
  if (code === "EPRIVATE") return { ok: false, outcome: "failed", reason: `${options.label}: ${message}` };
  if (options.signal.aborted || name === "AbortError" || code === "ABORT_ERR")
    return { ok: false, outcome: "retry", reason: `${options.label}: the download timed out` };
  return { ok: false, outcome: "retry", reason: `${options.label} unreachable (${code ?? message ?? "network error"})` };
}

/** A little of an error body, for the operator (platforms explain their refusals there). */
async function shortBody(response: IncomingMessage): Promise<string> {
  let text = "";
  try {
    for await (const chunk of response) {
      text += (chunk as Buffer).toString("utf8");
      if (text.length > 300) break;
    }
  } catch {
    // the reason is the status then
  } finally {
    response.destroy();
  }
  try {
    const json = JSON.parse(text) as { description?: string; message?: string };
    text = json.description ?? json.message ?? text;
  } catch {
    // not JSON
  }
  return text.replace(/\s+/g, " ").trim().slice(0, 160);
}
