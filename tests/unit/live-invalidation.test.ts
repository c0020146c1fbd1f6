import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { ApiError } from "@/app/(dashboard)/_lib/api";
import { invalidateFor, invalidateNow } from "@/app/(dashboard)/_lib/live-events";

/** A query whose loads the test answers by hand, in order: what each load returns is the server's state when it read. */
function handAnswered(client: QueryClient, queryKey: unknown[]) {
  const loads: ((value: string) => void)[] = [];
  const observer = new QueryObserver(client, {
    queryKey,
    queryFn: () => new Promise<string>((resolve) => loads.push(resolve)),
    retry: false,
  });
  const seen: (string | undefined)[] = [];
  const stop = observer.subscribe((result) => seen.push(result.data));
  const settled = () => new Promise((r) => setTimeout(r, 0));
  return { loads, data: () => observer.getCurrentResult().data, stop, settled, seen };
}

describe("live events and a page's first load", () => {
  it("a change that arrives while a query's first load is in flight is read again once that load lands", async () => {
    const client = new QueryClient();
    const q = handAnswered(client, ["settings"]);
    await q.settled();
    expect(q.loads).toHaveLength(1);
    // The first load read before the change; the change's events come while it is still on its way (three of them).
    invalidateFor(client, { type: "settings" });
    invalidateFor(client, { type: "settings" });
    invalidateFor(client, { type: "settings" });
    await q.settled();
    q.loads[0]!("before the change");
    await q.settled();
    // Without a second read the page would show the older state until the next change.
    expect(q.loads).toHaveLength(2);
    q.loads[1]!("after the change");
    await q.settled();
    expect(q.data()).toBe("after the change");
    // Read again once, not once per event.
    expect(q.loads).toHaveLength(2);
    q.stop();
    client.clear();
  });

  it("a first load the server refuses (404) while an event arrives is not read again when it lands", async () => {
    const client = new QueryClient();
    const refusals: ((error: Error) => void)[] = [];
    const observer = new QueryObserver(client, {
      queryKey: ["conversation", 987654321, "messages"],
      queryFn: () => new Promise<string>((_, reject) => refusals.push(reject)),
      retry: false,
    });
    const stop = observer.subscribe(() => {});
    const settled = () => new Promise((r) => setTimeout(r, 0));
    await settled();
    // The stream opens (invalidate everything) while the unknown conversation's first load is on its way.
    invalidateNow(client);
    refusals[0]!(new ApiError("conversation not found", 404));
    await settled();
    await settled();
    // An unknown conversation is unknown the second time too (the page read it twice: e2e operator-walk).
    expect(refusals).toHaveLength(1);
    stop();
    client.clear();
  });

  it("the stream opening during a first load (invalidate everything) reads it again too; a loaded query refetches once", async () => {
    const client = new QueryClient();
    const first = handAnswered(client, ["conversations"]);
    await first.settled();
    invalidateNow(client);
    first.loads[0]!("old");
    await first.settled();
    expect(first.loads).toHaveLength(2);
    first.loads[1]!("new");
    await first.settled();
    // Loaded already: an invalidation refetches it once, as TanStack does.
    invalidateNow(client, ["conversations"]);
    await first.settled();
    expect(first.loads).toHaveLength(3);
    first.loads[2]!("newer");
    await first.settled();
    expect(first.data()).toBe("newer");
    expect(first.loads).toHaveLength(3);
    first.stop();
    client.clear();
  });

  it("a label change (a conversation event without an id) reloads the labels; one conversation's change does not", async () => {
    const client = new QueryClient();
    const q = handAnswered(client, ["labels"]);
    await q.settled();
    q.loads[0]!("billing");
    await q.settled();
    invalidateFor(client, { type: "conversation", conversationId: 7 });
    await q.settled();
    expect(q.loads).toHaveLength(1);
    invalidateFor(client, { type: "conversation", conversationId: null });
    await q.settled();
    expect(q.loads).toHaveLength(2);
    q.stop();
    client.clear();
  });
});
