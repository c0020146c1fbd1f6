// An OpenAI-compatible model for the e2e server: answers every user turn by
// calling `reply` with "Echo: <last line of the user's message>". e2e never calls a
// real model. Started by playwright.config.ts as a web server on E2E_LLM_PORT.
// A message containing "[malformed]" gets a `reply` call with invalid arguments, as
// models sometimes produce; one containing "[handoff]" also gets a `handoff` call.
// A message containing "[refuse]" is refused three times (429 with Retry-After: 2), then answered.
// Instructions (the system prompt) containing "[shout]" make the answer upper case (replays try other instructions).
// It also plays the Bot API for bots added from the Bots page (TELEGRAM_API_ROOT points
// here): /bot<token>/<method>, every call recorded and listed at GET /__telegram/calls.
// Files users send (getFile, then GET /file/bot<token>/<path>) by their file_id's prefix:
// "e2e-photo-…" a real 900×600 JPEG, "e2e-voice-…" a real Ogg Opus voice note, "e2e-doc-…" a PDF.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import sharp from "sharp";

const port = Number(process.env.E2E_LLM_PORT ?? 3901);
let calls = 0;
const telegramCalls = [];
let nextMessageId = 90_000;
/** Refusals so far per "[refuse]" message text. */
const refused = new Map();

const FILES = {
  photo: {
    extension: "jpg",
    bytes: await sharp({ create: { width: 900, height: 600, channels: 3, background: { r: 200, g: 120, b: 40 } } })
      .jpeg()
      .toBuffer(),
  },
  voice: { extension: "oga", bytes: readFileSync(new URL("../../tests/fixtures/media/voice.ogg", import.meta.url)) },
  doc: {
    extension: "pdf",
    bytes: Buffer.from(
      "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
        "3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
    ),
  },
};
const fileOf = (fileId) => FILES[/^e2e-(photo|voice|doc)-/.exec(String(fileId))?.[1] ?? ""];

/** getMe's bot for a token "<id>:<secret>": a made-up name and username from its id. */
function botAPI(method, token, body) {
  const id = Number(token.split(":")[0]);
  if (method === "getMe")
    return {
      id,
      is_bot: true,
      first_name: `E2E Bot ${id}`,
      username: `e2e_${id}_bot`,
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
    };
  if (method === "getFile") {
    const file = fileOf(body.file_id);
    if (!file) return undefined;
    return {
      file_id: body.file_id,
      file_unique_id: `u-${body.file_id}`,
      file_size: file.bytes.length,
      file_path: `files/${body.file_id}.${file.extension}`,
    };
  }
  if (method === "sendMessage") {
    sentMessages.set(`${body.chat_id}:${nextMessageId}`, { text: body.text, date: Math.floor(Date.now() / 1000) });
    return {
      message_id: nextMessageId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: Number(body.chat_id), type: "private" },
      text: body.text,
    };
  }
  // Edits and deletions of the bot's text messages, refused with Telegram's own descriptions.
  if (method === "editMessageText" || method === "editMessageCaption") {
    const sent = sentMessages.get(`${body.chat_id}:${body.message_id}`);
    if (!sent) return refusal("Bad Request: message to edit not found");
    if (method === "editMessageCaption") return refusal("Bad Request: there is no caption in the message to edit");
    if (sent.text === body.text)
      return refusal(
        "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
      );
    sent.text = body.text;
    return {
      message_id: Number(body.message_id),
      date: sent.date,
      edit_date: Math.floor(Date.now() / 1000),
      chat: { id: Number(body.chat_id), type: "private" },
      text: body.text,
    };
  }
  if (method === "deleteMessage") {
    if (!sentMessages.delete(`${body.chat_id}:${body.message_id}`)) return refusal("Bad Request: message to delete not found");
    return true;
  }
  return true;
}

/** The bot's text messages as the chat holds them, by "<chat>:<message id>". */
const sentMessages = new Map();
/** A Bot API refusal (400 with its description). */
const refusal = (description) => ({ refusal: description });

createServer(async (req, res) => {
  if (req.method === "GET" && req.url === "/__telegram/calls") {
    res.setHeader("content-type", "application/json");
    return res.end(JSON.stringify(telegramCalls));
  }
  const download = req.method === "GET" && /^\/file\/bot[^/]+\/files\/([^/.]+)\.\w+$/.exec(req.url);
  if (download) {
    const file = fileOf(download[1]);
    if (!file) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": file.bytes.length });
    return res.end(file.bytes);
  }
  if (req.method === "GET") return res.end("ok");
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const raw = Buffer.concat(chunks).toString("utf8");
  const bot = req.url.match(/^\/bot([^/]+)\/(\w+)$/);
  if (bot) {
    const body = raw ? JSON.parse(raw) : {};
    telegramCalls.push({ token: bot[1], method: bot[2], body });
    res.setHeader("content-type", "application/json");
    const result = botAPI(bot[2], bot[1], body);
    if (result === undefined || result?.refusal) {
      res.statusCode = 400;
      return res.end(JSON.stringify({ ok: false, error_code: 400, description: result?.refusal ?? "Bad Request: invalid file_id" }));
    }
    return res.end(JSON.stringify({ ok: true, result }));
  }
  const body = JSON.parse(raw);
  const last = body.messages[body.messages.length - 1];
  const base = {
    id: `c${++calls}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
  };
  res.setHeader("content-type", "application/json");
  if (last.role === "tool") {
    return res.end(
      JSON.stringify({ ...base, choices: [{ index: 0, message: { role: "assistant", content: "" }, finish_reason: "stop" }] }),
    );
  }
  const text = String(typeof last.content === "string" ? last.content : JSON.stringify(last.content))
    .split("\n")
    .pop();
  if (text.includes("[refuse]") && (refused.get(text) ?? 0) < 3) {
    refused.set(text, (refused.get(text) ?? 0) + 1);
    res.statusCode = 429;
    res.setHeader("retry-after", "2");
    return res.end(
      JSON.stringify({ error: { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" } }),
    );
  }
  const system = body.messages.find((m) => m.role === "system");
  const shout = typeof system?.content === "string" && system.content.includes("[shout]");
  const args = text.includes("[malformed]") ? { msg: 42 } : { message: shout ? `ECHO: ${text.toUpperCase()}` : `Echo: ${text}` };
  const call = { id: `call_${calls}`, type: "function", function: { name: "reply", arguments: JSON.stringify(args) } };
  // "[handoff]": the model also passes the conversation to a human, in the same turn.
  const handoff = {
    id: `handoff_${calls}`,
    type: "function",
    function: { name: "handoff", arguments: JSON.stringify({ reason: "the user asked for a person" }) },
  };
  const toolCalls = text.includes("[handoff]") ? [call, handoff] : [call];
  res.end(
    JSON.stringify({
      ...base,
      choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: toolCalls }, finish_reason: "tool_calls" }],
    }),
  );
}).listen(port, "127.0.0.1", () => console.log(`fake LLM on ${port}`));
