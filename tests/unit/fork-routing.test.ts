import { describe, expect, it } from "vitest";
import { decideResume, interactiveChildOf, replyResumes } from "@/lib/pipeline/fork-routing";

const DAY = 86_400_000;
const at = new Date("2026-11-20T10:00:00Z");
const fork = (over: Partial<Parameters<typeof replyResumes>[0]> = {}) => ({
  id: 5,
  kind: "background",
  status: "done",
  startedAt: new Date(at.getTime() - DAY),
  title: "weekly report",
  baseMessageId: 40,
  ...over,
});

describe("a reply resumes a fork", () => {
  it("only a background fork, not expired, started within the TTL", () => {
    expect(replyResumes(fork(), at, 7 * DAY)).toBe(true);
    expect(replyResumes(fork({ status: "running" }), at, 7 * DAY)).toBe(true);
    expect(replyResumes(fork({ kind: "interactive", status: "exited" }), at, 7 * DAY)).toBe(false);
    expect(replyResumes(fork({ status: "expired" }), at, 7 * DAY)).toBe(false);
    expect(replyResumes(fork({ startedAt: new Date(at.getTime() - 8 * DAY) }), at, 7 * DAY)).toBe(false);
    expect(replyResumes(fork({ startedAt: new Date(at.getTime() - 7 * DAY) }), at, 7 * DAY)).toBe(false);
  });
});

describe("resuming a fork", () => {
  it("opens it when the main session is active", () => {
    expect(decideResume({ id: 5 }, null)).toEqual({ action: "open" });
  });
  it("continues where it already is: the fork itself, or its interactive child", () => {
    expect(decideResume({ id: 5 }, { id: 5, parentForkId: null })).toEqual({ action: "continue", forkId: 5 });
    expect(decideResume({ id: 5 }, { id: 9, parentForkId: 5 })).toEqual({ action: "continue", forkId: 9 });
  });
  it("is a conflict while another interactive fork is active (forks never nest)", () => {
    expect(decideResume({ id: 5 }, { id: 9, parentForkId: 3 })).toEqual({ action: "conflict", activeForkId: 9 });
    expect(decideResume({ id: 5 }, { id: 9, parentForkId: null })).toEqual({ action: "conflict", activeForkId: 9 });
  });
  it("through an interactive child that shares the background fork's title and base", () => {
    expect(interactiveChildOf({ ...fork(), conversationId: 2 }, "reply from Ada")).toEqual({
      conversationId: 2,
      parentForkId: 5,
      startedBy: "reply from Ada",
      title: "weekly report",
      baseMessageId: 40,
    });
  });
});
