// A small CLI over /api/v1/envelopes for agents and scripts.
//   npm run envelope -- send --from agent:main --to channel:telegram:42 --text "hi" [--reply-to 12] [--deliver-at +2h]
//   npm run envelope -- receive --to agent:helper                   (the agent's due mail, acknowledged: at most once)
//   npm run envelope -- list --to agent:helper --status pending     (lists, changes nothing)
//   npm run envelope -- show --envelope-id 12
//   npm run envelope -- thread --envelope-id 12
// SWITCHBOARD_URL (default http://localhost:3000) and SWITCHBOARD_API_TOKEN.
import { parseArgs } from "node:util";
import { describeError } from "./lib/cli.mjs";

const [command, ...rest] = process.argv.slice(2);
const { values } = parseArgs({
  args: rest,
  options: {
    from: { type: "string" },
    to: { type: "string" },
    text: { type: "string" },
    "reply-to": { type: "string" },
    "deliver-at": { type: "string" },
    status: { type: "string" },
    "envelope-id": { type: "string" },
  },
});
const base = (process.env.SWITCHBOARD_URL ?? "http://localhost:3000").replace(/\/$/, "");
const token = process.env.SWITCHBOARD_API_TOKEN;
if (!token) fail("SWITCHBOARD_API_TOKEN is not set");

function fail(message) {
  console.error(message);
  process.exit(2);
}

async function call(method, path, body) {
  const response = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(30_000),
  }).catch((error) => fail(`cannot reach ${base}: ${describeError(error)}`));
  const payload = await response.json().catch(() => ({}));
  if (!response.ok)
    fail(
      `${response.status} ${payload?.error?.message ?? response.statusText}${payload?.error?.details ? `\n${JSON.stringify(payload.error.details, null, 2)}` : ""}`,
    );
  return payload;
}

const id = () => values["envelope-id"] ?? fail("--envelope-id is required");
let result;
switch (command) {
  case "send":
    if (!values.to || !values.text) fail("send needs --to and --text");
    result = await call("POST", "/envelopes", {
      from: values.from ?? "agent:main",
      to: values.to,
      text: values.text,
      ...(values["reply-to"] ? { replyTo: Number(values["reply-to"]) } : {}),
      ...(values["deliver-at"] ? { deliverAt: values["deliver-at"] } : {}),
    });
    break;
  case "list": {
    const query = new URLSearchParams(Object.entries({ to: values.to, from: values.from, status: values.status }).filter(([, v]) => v));
    result = await call("GET", `/envelopes?${query}`);
    break;
  }
  case "receive":
    if (!values.to) fail("receive needs --to agent:<name>");
    result = await call("POST", "/envelopes/receive", { to: values.to });
    break;
  case "show":
    result = await call("GET", `/envelopes/${id()}`);
    break;
  case "thread":
    result = await call("GET", `/envelopes/${id()}/thread`);
    break;
  default:
    fail("usage: npm run envelope -- send|receive|list|show|thread [options]  (see scripts/envelope.mjs)");
}
console.log(JSON.stringify(result, null, 2));
