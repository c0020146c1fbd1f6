import { describe, expect, it } from "vitest";
import { clientKeyFor, resolveClientAddress } from "@/lib/http/client-address.mjs";

describe("the client address for throttling", () => {
  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(resolveClientAddress("203.0.113.7", "1.2.3.4", 0)).toBe("203.0.113.7");
    expect(resolveClientAddress("::ffff:127.0.0.1", "1.2.3.4, 5.6.7.8", 0)).toBe("127.0.0.1");
  });

  it("behind trusted proxies, is the entry the outermost trusted proxy appended, never the client's own", () => {
    // The client sent "6.6.6.6"; our one proxy (10.0.0.2) appended the real client address.
    expect(resolveClientAddress("10.0.0.2", "6.6.6.6, 203.0.113.7", 1)).toBe("203.0.113.7");
    expect(resolveClientAddress("10.0.0.3", "6.6.6.6, 203.0.113.7, 10.0.0.2", 2)).toBe("203.0.113.7");
    // Not an address, or too short a chain: the peer.
    expect(resolveClientAddress("10.0.0.2", "garbage", 1)).toBe("10.0.0.2");
    expect(resolveClientAddress("10.0.0.2", undefined, 1)).toBe("10.0.0.2");
  });

  it("keys IPv6 clients by their /64", () => {
    expect(clientKeyFor("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(clientKeyFor("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(clientKeyFor("::1")).toBe("0:0:0:0::/64");
    expect(clientKeyFor("198.51.100.4")).toBe("198.51.100.4");
  });
});
