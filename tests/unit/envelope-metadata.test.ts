import { describe, expect, it } from "vitest";
import { readEnvelopeMetadata } from "@/lib/db/envelope-metadata";

describe("envelope metadata", () => {
  it("reads the typed keys", () => {
    const stored = {
      platformMessageId: "7",
      forkConflict: true,
      platform: { replyToken: "t", receivedAt: 1 },
      replied: "unknown",
      burst: [1, 2],
      outcome: "not_sent",
    };
    expect(readEnvelopeMetadata(stored)).toEqual(stored);
    expect(readEnvelopeMetadata(JSON.stringify(stored))).toEqual(stored);
  });

  it("reads rows of older versions without throwing: unknown keys dropped, a wrong type reads as absent", () => {
    const old = {
      lastDeliveryError: "Telegram 403",
      someRetiredKey: { a: [1] },
      forkConflict: "yes",
      replied: true,
      outcome: "maybe",
      inReplyToMessageId: null,
    };
    expect(readEnvelopeMetadata(old)).toEqual({ replied: true, inReplyToMessageId: null });
  });

  it("reads anything that is not an object as empty", () => {
    for (const stored of [null, [1, 2], 3, "not json", "[]"]) expect(readEnvelopeMetadata(stored)).toEqual({});
  });
});
