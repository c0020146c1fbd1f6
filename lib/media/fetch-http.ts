import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";
import type { MediaDownload } from "../channels/types";

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

/** Addresses an external URL must not reach: the server's own network (SSRF). */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  PRIVATE.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  PRIVATE.addSubnet(net, prefix, "ipv6");

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, "ipv4");
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1], "ipv4");
  return PRIVATE.check(address, "ipv6");
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
