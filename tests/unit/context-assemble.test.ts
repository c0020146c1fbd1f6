import { describe, expect, it } from "vitest";
import { assembleContext, buildContext, contextNeeds, gapNote } from "@/lib/context/assemble";
import type { ContextFacts } from "@/lib/db/context-facts";
import { msg } from "../helpers/messages";

const settings = { gapThresholdMinutes: 15 };
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => msg(from + i));

describe("buildContext", () => {
  it("a new message without a reply gets the recency window only", () => {
    const recent = range(91, 100);
    const out = buildContext({ current: recent[9], recent, target: null, targetNeighbours: [], chain: [], previous: recent[8], settings });
    expect(out.messages.map((m) => m.id)).toEqual(range(91, 100).map((m) => m.id));
    expect(out.messages.every((m) => m.origin === "recent")).toBe(true);
  });

  it("a reply adds the target, its neighbours and its chain, marked as reply context, in time order", () => {
    const recent = range(91, 100);
    const current = msg(100, { replyToMessageId: 40 });
    const out = buildContext({
      current,
      recent: [...recent.slice(0, 9), current],
      target: msg(40, { replyToMessageId: 20 }),
      targetNeighbours: [msg(37), msg(38), msg(39), msg(41), msg(42), msg(43)],
      chain: [msg(20)],
      previous: recent[8],
      settings,
    });
    expect(out.messages.map((m) => m.id)).toEqual([20, 37, 38, 39, 40, 41, 42, 43, ...range(91, 100).map((m) => m.id)]);
    expect(out.messages.filter((m) => m.origin === "reply-context").map((m) => m.id)).toEqual([20, 37, 38, 39, 40, 41, 42, 43]);
  });

  it("a missing target falls back to recency only", () => {
    const recent = range(1, 5);
    const current = msg(5, { replyToMessageId: null, replyToText: "old text the bot never stored" });
    const out = buildContext({
      current,
      recent: [...recent.slice(0, 4), current],
      target: null,
      targetNeighbours: [],
      chain: [],
      previous: recent[3],
      settings,
    });
    expect(out.messages.map((m) => m.id)).toEqual([1, 2, 3, 4, 5]);
  });

  it("removes duplicates when the reply context overlaps the recency window", () => {
    const recent = range(1, 10);
    const current = msg(10, { replyToMessageId: 8 });
    const out = buildContext({
      current,
      recent: [...recent.slice(0, 9), current],
      target: msg(8),
      targetNeighbours: [msg(5), msg(6), msg(7), msg(9), msg(10)],
      chain: [msg(8)],
      previous: msg(9),
      settings,
    });
    const ids = out.messages.map((m) => m.id);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(out.messages.every((m) => m.origin === "recent")).toBe(true);
  });
});

describe("gap note", () => {
  const at = (minutes: number) => msg(1000, { sentAt: new Date(Date.parse("2026-11-20T10:00:00Z") + minutes * 60_000) });
  const previous = at(0);

  it("is added above the threshold, with a readable duration", () => {
    expect(gapNote(at(16), previous, 15)).toMatch(/16 minutes before this one/);
    expect(gapNote(at(180), previous, 15)).toMatch(/3 hours before/);
    expect(gapNote(at(2 * 1440 + 240), previous, 15)).toMatch(/2 days 4 hours before/);
  });
  it("is absent at or below the threshold", () => {
    expect(gapNote(at(15), previous, 15)).toBeNull();
    expect(gapNote(at(3), previous, 15)).toBeNull();
  });
  it("respects the configured threshold", () => {
    expect(gapNote(at(30), previous, 60)).toBeNull();
    expect(gapNote(at(30), previous, 20)).toMatch(/30 minutes/);
  });
  it("is absent for the first message of a conversation", () => {
    expect(gapNote(at(999), null, 15)).toBeNull();
  });
  it("reaches the context result", () => {
    const current = at(45);
    const out = buildContext({ current, recent: [previous, current], target: null, targetNeighbours: [], chain: [], previous, settings });
    expect(out.gapNote).toMatch(/45 minutes/);
  });
});

describe("ordering", () => {
  it("keeps the message being answered last even when its target has a later timestamp", () => {
    const current = msg(5, { replyToMessageId: 9, sentAt: new Date("2026-11-20T10:00:00Z") });
    const target = msg(9, { senderKind: "agent", sentAt: new Date("2026-11-20T10:00:00.400Z") });
    const earlier = msg(1, { sentAt: new Date("2026-11-20T09:59:00Z") });
    const out = buildContext({ current, recent: [earlier, current], target, targetNeighbours: [], chain: [], previous: earlier, settings });
    expect(out.messages.map((m) => m.id)).toEqual([1, 9, 5]);
  });
});

describe("assembleContext", () => {
  const settings = { recencyWindow: 3, replyContextWindow: 3, replyChainDepth: 3, gapThresholdMinutes: 15, forkPendingUpdates: 2 };
  const conversation = { channel: "telegram", type: "private", title: null };
  const facts = (patch: Partial<ContextFacts>): ContextFacts => ({
    conversation,
    current: null,
    session: [],
    forkBase: [],
    pendingUpdates: [],
    target: null,
    targetNeighbours: [],
    chain: [],
    burst: [],
    previousSentAt: new Map(),
    ...patch,
  });

  it("a fork's turn: its own messages after the main session before it began, the window from both, the newest pending updates", () => {
    const current = msg(30, { forkId: 7 });
    const out = assembleContext(
      facts({
        current,
        session: [current, msg(29, { forkId: 7 })],
        forkBase: [msg(20), msg(19), msg(18)],
        pendingUpdates: [msg(21), msg(22), msg(23)],
      }),
      settings,
    );
    expect(out.messages.map((m) => m.id)).toEqual([20, 29, 30]);
    expect(out.pendingUpdates.map((u) => u.text)).toEqual(["message 22", "message 23"]);
    expect(
      assembleContext(facts({ current, session: [current], pendingUpdates: [msg(21)] }), { ...settings, forkPendingUpdates: 0 })
        .pendingUpdates,
    ).toEqual([]);
  });

  it.each([1, 2, 3])(
    "a window of %i keeps exactly that many of the messages loaded (the load has one more, for the gap note)",
    (window) => {
      const current = msg(100);
      const loaded = [current, msg(99), msg(98), msg(97), msg(96)].slice(0, contextNeeds({ ...settings, recencyWindow: window }).recency);
      const out = assembleContext(facts({ current, session: loaded }), { ...settings, recencyWindow: window });
      expect(out.messages.map((m) => m.id)).toEqual([100, 99, 98].slice(0, window).reverse());
      // The gap note's previous message is the one before the current, in the window or not (59 minutes: over the threshold).
      const late = msg(100, { sentAt: new Date(Date.parse("2026-11-20T10:00:00Z") + 158 * 60_000) });
      expect(
        assembleContext(facts({ current: late, session: [late, ...loaded.slice(1)] }), { ...settings, recencyWindow: window }).gapNote,
      ).toMatch(/59 minutes before this one/);
    },
  );

  it("a burst: every message in, even beyond the window; the gap note measures the silence before the burst", () => {
    const current = msg(100);
    const burst = [msg(97), msg(98), msg(99)];
    const out = assembleContext(facts({ current, session: [current, msg(99), msg(98), msg(97), msg(50)], burst }), {
      ...settings,
      recencyWindow: 2,
    });
    expect(out.messages.map((m) => m.id)).toEqual([97, 98, 99, 100]);
    expect(out.notes).toEqual([expect.stringContaining("last 4 messages in a row")]);
  });

  it("a background task: the newest main-session messages oldest first, its role, no gap note", () => {
    const out = assembleContext(
      facts({ session: [msg(5), msg(4), msg(3), msg(2)], task: { text: "check in", from: "operator:ada", at: new Date() } }),
      settings,
    );
    expect(out.messages.map((m) => m.id)).toEqual([3, 4, 5]);
    expect(out.currentId).toBeNull();
    expect(out.gapNote).toBeNull();
    expect(out.notes).toEqual([expect.stringContaining("started by operator ada")]);
  });
});
