// The client's address for throttling, decided by the HTTP server in front of Next
// (scripts/start.mjs), which alone sees the socket. Plain JavaScript so that script
// can import it without a TypeScript loader.
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";

/** Names the per-process header that carries the peer address; see peerHeaderName(). */
export const PEER_HEADER_ENV = "SWITCHBOARD_PEER_HEADER";

/**
 * The header the server sets on every request it hands to Next: a random name per
 * process (so no client can guess it) kept in the environment Next's route handlers
 * share. The server also deletes any incoming header with the prefix.
 */
export function peerHeaderName(env = process.env) {
  env[PEER_HEADER_ENV] ||= `x-switchboard-peer-${randomBytes(8).toString("hex")}`;
  return env[PEER_HEADER_ENV];
}

export const PEER_HEADER_PREFIX = "x-switchboard-peer";

/**
 * The client address: the socket's peer, or, behind `trustedHops` reverse proxies
 * that each append to X-Forwarded-For, the entry the outermost trusted proxy added.
 * Entries further left were written by the client and are never trusted.
 *
 *   resolveClientAddress("10.0.0.2", "6.6.6.6, 203.0.113.7", 1) === "203.0.113.7"
 */
export function resolveClientAddress(socketAddress, forwardedFor, trustedHops = 0) {
  const peer = normalize(socketAddress ?? "") ?? "unknown";
  if (!trustedHops) return peer;
  const chain = (forwardedFor ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  // chain + [peer]: the last trustedHops entries are our proxies; the one before them is the client.
  const all = [...chain, peer];
  const candidate = all[all.length - 1 - trustedHops];
  return (candidate && normalize(candidate)) ?? peer;
}

function normalize(address) {
  const plain = address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  return isIP(plain) ? plain : null;
}

/** The throttling key for an address: IPv4 as is, IPv6 by its /64 (one host usually owns a whole /64). */
export function clientKeyFor(address) {
  if (isIP(address) !== 6) return address;
  const [head] = address.split("%");
  const expanded = expandIpv6(head);
  return `${expanded.slice(0, 4).join(":")}::/64`;
}

function expandIpv6(address) {
  const [left, right = ""] = address.split("::");
  const l = left ? left.split(":") : [];
  const r = right ? right.split(":") : [];
  const fill = address.includes("::") ? Array(8 - l.length - r.length).fill("0") : [];
  return [...l, ...fill, ...r].map((part) => part.toLowerCase().replace(/^0+(?=.)/, ""));
}
