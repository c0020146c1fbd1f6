import { createServer, type RequestListener } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkLineChannel } from "@/lib/bots/platform-check";
import { DeliveryError } from "@/lib/channels/types";
import { createLineChannel } from "@/lib/channels/line/adapter";

/** A local stand-in for LINE's API on a free port. */
async function listen(handler: RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The sockets still open after the client had up to three seconds to close them. */
async function stillOpen(sockets: Socket[]): Promise<Socket[]> {
  const deadline = Date.now() + 3_000;
  while (sockets.some((socket) => !socket.destroyed) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return sockets.filter((socket) => !socket.destroyed);
}

/**
 * A LINE that takes the request and never answers (a hung proxy, an outage mid-call).
 * Its SDK has no time limit of its own: each call must be given up, as unknown.
 */
describe("a LINE API that does not answer", () => {
  // Long enough that a request always reaches the fake before the client gives up, on a
  // loaded machine too (at 150 ms one sometimes arrived after, and counted in the next test).
  const LIMIT_MS = 1_000;
  let fake: Awaited<ReturnType<typeof listen>>;
  let url: string;
  const calls: string[] = [];
  const requestSockets: Socket[] = [];
  beforeAll(async () => {
    fake = await listen((req) => {
      calls.push(req.url ?? "");
      requestSockets.push(req.socket);
      req.resume();
    });
    url = fake.url;
  });
  afterAll(() => fake.close());

  it("a send is given up after the limit with an unknown outcome, and a fresh reply token is not followed by a push", async () => {
    calls.length = 0;
    const line = createLineChannel({ accessToken: "t", apiRoot: url, timeoutMs: LIMIT_MS });
    const started = Date.now();
    const error = await line
      .send({ chatId: "U1", text: "hello", platform: { replyToken: "r1", receivedAt: Date.now() } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ outcome: "unknown", message: "LINE did not answer within 1 s: the message may have gone out" });
    expect(Date.now() - started).toBeLessThan(5_000);
    // Possibly delivered: never sent again by push.
    expect(calls).toEqual(["/v2/bot/message/reply"]);
  });

  it("closes the connection of a call it gave up on (it is not left open until undici's 300 s)", async () => {
    requestSockets.length = 0;
    const line = createLineChannel({ accessToken: "t", apiRoot: url, timeoutMs: LIMIT_MS });
    await expect(line.send({ chatId: "U1", text: "hello" })).rejects.toMatchObject({ outcome: "unknown" });
    await expect(line.showActivity!({ chatId: "U1", chatType: "private" })).rejects.toBeInstanceOf(DeliveryError);
    expect(requestSockets).toHaveLength(2);
    // The server sees each call's connection end once the client aborts (at once here; undici's own limit is 300 s).
    expect(await stillOpen(requestSockets)).toHaveLength(0);
  });

  it("a push and the loading animation are given up too", async () => {
    const line = createLineChannel({ accessToken: "t", apiRoot: url, timeoutMs: LIMIT_MS });
    await expect(line.send({ chatId: "U1", text: "hello" })).rejects.toMatchObject({ outcome: "unknown" });
    await expect(line.showActivity!({ chatId: "U1", chatType: "private" })).rejects.toBeInstanceOf(DeliveryError);
  });

  it("checking a channel's token says LINE did not answer", async () => {
    const check = await checkLineChannel("t", url);
    // No answer is not a refusal: adding the bot answers 502, not "the platform refused the credentials".
    expect(check).toEqual({ ok: false, answer: "LINE bot info failed: LINE did not answer within 10 s", unreachable: true });
  }, 20_000);
});

describe("a LINE that answers 200 and then trickles the body", () => {
  let fake: Awaited<ReturnType<typeof listen>>;
  let url: string;
  const requestSockets: Socket[] = [];
  beforeAll(async () => {
    fake = await listen((req, res) => {
      requestSockets.push(req.socket);
      req.resume();
      if (req.url === "/v2/bot/info") return res.writeHead(200, { "content-type": "application/json" }).end("");
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"sentMessages":[');
      const trickle = setInterval(() => res.write(" "), 50);
      res.on("close", () => clearInterval(trickle));
    });
    url = fake.url;
  });
  afterAll(() => fake.close());

  it("gives the call up at its limit while the process makes garbage (undici's own watch of the signal is collected), and closes the connection", async () => {
    // Ordinary garbage, as a busy server makes: young-generation collections several times a second.
    const churn = setInterval(() => Array.from({ length: 200_000 }, (_, i) => ({ i })), 20);
    try {
      const line = createLineChannel({ accessToken: "t", apiRoot: url, timeoutMs: 500 });
      const outcome = await Promise.race([
        line.send({ chatId: "U1", text: "hello" }).catch((e: unknown) => e),
        new Promise((resolve) => setTimeout(() => resolve("still reading"), 8_000)),
      ]);
      expect(outcome).toMatchObject({ outcome: "unknown", message: "LINE did not answer within 0.5 s: the message may have gone out" });
    } finally {
      clearInterval(churn);
    }
    expect(await stillOpen(requestSockets)).toHaveLength(0);
  }, 20_000);

  it("an empty bot info is not a bot to add", async () => {
    expect(await checkLineChannel("t", url)).toEqual({
      ok: false,
      answer: "LINE bot info failed: the answer had no bot user id",
      unreachable: true,
    });
  });
});

describe("a LINE connection that fails", () => {
  it("cut after LINE read the message: the outcome is unknown (never sent again); no connection at all: not sent", async () => {
    const cutter = createServer(async (req, res) => {
      for await (const _ of req) {
        // read the whole request: LINE has the message
      }
      res.socket?.destroy();
    });
    await new Promise<void>((resolve) => cutter.listen(0, "127.0.0.1", resolve));
    const port = (cutter.address() as AddressInfo).port;
    const cut = await createLineChannel({ accessToken: "t", apiRoot: `http://127.0.0.1:${port}` })
      .send({ chatId: "U1", text: "hello" })
      .catch((e: unknown) => e);
    expect(cut).toMatchObject({ outcome: "unknown" });
    cutter.closeAllConnections();
    await new Promise((resolve) => cutter.close(resolve));

    // The same port, nothing listening now: refused before anything was sent.
    const refused = await createLineChannel({ accessToken: "t", apiRoot: `http://127.0.0.1:${port}` })
      .send({ chatId: "U1", text: "hello" })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ outcome: "not_sent", message: expect.stringContaining("ECONNREFUSED") });
  });
});
