import { describe, expect, it } from "vitest";
import { spentText, usd } from "@/app/(dashboard)/_lib/money";

describe("what a conversation's turns cost, as the badge says it", () => {
  it("says the cost is unknown when no turn had a price, never a dash with a plus", () => {
    expect(spentText(null, 3)).toBe("cost unknown");
    expect(spentText(null, 3)).not.toMatch(/—|\+/);
  });
  it("says 'at least' when some turns had no price, the sum when all had one", () => {
    expect(spentText(0.0123, 2)).toBe(`at least ${usd(0.0123)}`);
    expect(spentText(1.5, 0)).toBe("$1.50");
    expect(spentText(0, 0)).toBe("$0");
  });
});
