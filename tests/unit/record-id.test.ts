import { describe, expect, it } from "vitest";
import { sendEnvelopeSchema } from "@/lib/envelope/send-schema";
import { MAX_ID, recordIdParam } from "@/lib/record-id";

describe("ids from a form, a body or a URL", () => {
  const replyTo = (value: number) =>
    sendEnvelopeSchema.safeParse({ from: "operator:op", to: "agent:main", text: "x", replyTo: value }).error?.issues.map((i) => i.message);

  it("say what an id is when one is not (the compose form shows this text)", () => {
    for (const bad of [-3, 0, 1.5, Number.NaN]) expect(replyTo(bad), String(bad)).toEqual(["must be an id: a whole number of 1 or more"]);
    expect(replyTo(MAX_ID + 1)).toEqual(["no such id (too large)"]);
    expect(replyTo(MAX_ID)).toBeUndefined();
  });

  it("read from text as path and query ids are", () => {
    expect(recordIdParam.parse("42")).toBe(42);
    for (const bad of ["abc", "-1", "2147483648", "1e3x"]) expect(recordIdParam.safeParse(bad).success, bad).toBe(false);
  });
});
