import { describe, expect, it } from "vitest";
import { kindsSql, workKindOf, workKinds } from "@/lib/envelope/work-kinds";

describe("work kinds", () => {
  it("tells each kind from its envelope", () => {
    expect(workKindOf({ to: "agent:main", messageId: 5, forkId: null })).toBe("user_turn");
    expect(workKindOf({ to: "agent:main", messageId: 5, forkId: 3 })).toBe("user_turn");
    expect(workKindOf({ to: "agent:main", messageId: 5, forkId: 3, forkConflict: true })).toBe("fork_conflict_notice");
    expect(workKindOf({ to: "agent:main", messageId: null, forkId: 3 })).toBe("background_task");
    expect(workKindOf({ to: "channel:telegram:42", messageId: null, forkId: null })).toBe("channel_mail");
    expect(workKindOf({ to: "operator:on-call", messageId: null, forkId: null, handoff: true })).toBe("handoff_notice");
    expect(workKindOf({ to: "agent:main", messageId: null, forkId: null })).toBe("agent_mail");
  });

  it("the claim's SQL comes from the table: the worker's kinds, the debounced ones, what goes during a model pause", () => {
    for (const [name, spec] of Object.entries(workKinds)) {
      if (spec.where === null) continue;
      expect(
        kindsSql(() => true),
        name,
      ).toContain(spec.where);
    }
    expect(kindsSql((k) => k.duringModelPause)).toBe(`(("to" LIKE 'channel:%'))`);
    expect(kindsSql((k) => k.debounced)).toBe(`(("to" LIKE 'agent:%' AND "messageId" IS NOT NULL))`);
  });
});
