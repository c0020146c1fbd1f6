export declare const PEER_HEADER_ENV: "SWITCHBOARD_PEER_HEADER";
export declare const PEER_HEADER_PREFIX: "x-switchboard-peer";
export declare function peerHeaderName(env?: Record<string, string | undefined>): string;
export declare function resolveClientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  trustedHops?: number,
): string;
export declare function clientKeyFor(address: string): string;
