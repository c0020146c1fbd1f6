import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, test } from "@playwright/test";

const run = promisify(execFile);
const envelope = (...args: string[]) =>
  run(process.execPath, ["scripts/envelope.mjs", ...args], {
    env: {
      ...process.env,
      SWITCHBOARD_URL: `http://127.0.0.1:${process.env.E2E_PORT ?? 3900}`,
      SWITCHBOARD_API_TOKEN: "e2e-api-token-0123456789",
    },
  });

test("the envelope CLI sends agent mail, listing changes nothing, receiving acknowledges it once, and thread shows the chain", async () => {
  const sent = JSON.parse(
    (await envelope("send", "--from", "agent:main", "--to", "agent:helper", "--text", "summarize the backlog")).stdout,
  ).envelope;
  expect(sent).toMatchObject({ from: "agent:main", to: "agent:helper", status: "pending" });
  const reply = JSON.parse(
    (await envelope("send", "--from", "agent:helper", "--to", "agent:main", "--text", "on it", "--reply-to", String(sent.id))).stdout,
  ).envelope;

  const listed = JSON.parse((await envelope("list", "--to", "agent:helper", "--status", "pending")).stdout);
  expect(listed.envelopes.map((e: { id: number }) => e.id)).toEqual([sent.id]);
  const mail = JSON.parse((await envelope("receive", "--to", "agent:helper")).stdout);
  expect(mail.acknowledged).toBe(true);
  expect(mail.envelopes.map((e: { id: number }) => e.id)).toEqual([sent.id]);
  expect(JSON.parse((await envelope("receive", "--to", "agent:helper")).stdout).envelopes).toEqual([]);
  expect(JSON.parse((await envelope("list", "--to", "agent:helper", "--status", "pending")).stdout).envelopes).toEqual([]);

  const thread = JSON.parse((await envelope("thread", "--envelope-id", String(reply.id))).stdout);
  expect(thread.chain.map((e: { id: number }) => e.id)).toEqual([sent.id, reply.id]);
  await expect(envelope("send", "--to", "bogus", "--text", "x")).rejects.toThrow(/invalid address/);
});
