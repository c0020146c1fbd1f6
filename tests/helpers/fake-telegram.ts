import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { BOT } from "../fixtures/telegram";
import { serveFile, type FileSpec, type FileStats } from "./fake-files";

/** A file the fake Bot API holds: getFile answers its File object, the file route serves it. */
export type FakeTelegramFile = FileSpec & {
  /** file_size in getFile's answer; default the bytes' length, null to leave it out (as the Bot API may). */
  fileSize?: number | null;
  /** getFile answers 400 "Bad Request: file is too big" (the Bot API's 20 MB download limit). */
  tooBig?: boolean;
  /** The file route answers 404 quoting the URL it was asked for, token and all (as a proxy in front of the Bot API may). */
  echoUrl?: boolean;
};

export type BotApiCall = { method: string; body: Record<string, any>; token: string; files?: Record<string, UploadedPart> };
/** Another bot this server answers for (by its token): getMe returns this identity. */
export type FakeBotIdentity = { id: number; username: string; first_name: string };
/** A file a multipart call carried (sendPhoto, sendDocument…): its name, type and bytes. */
export type UploadedPart = { name: string; type: string; bytes: Buffer };

/** The methods that send a file, and the field that carries it. */
const MEDIA_METHODS: Record<string, string> = {
  sendPhoto: "photo",
  sendDocument: "document",
  sendVoice: "voice",
  sendAudio: "audio",
  sendVideo: "video",
};
/** A failure for the next call of `method` (default: the sends, sendMessage; chat actions and drafts are never its target by accident). */
type Failure = { status: number; body: Record<string, unknown>; delayMs?: number; method?: string };

/**
 * A call's parameters: JSON, or multipart/form-data when it uploads a file (the Bot
 * API's own two encodings; in a form, object parameters such as reply_parameters are
 * JSON text, as grammY sends them).
 */
async function readCall(req: IncomingMessage): Promise<{ body: Record<string, any>; files?: Record<string, UploadedPart> }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const type = req.headers["content-type"] ?? "";
  if (!type.startsWith("multipart/form-data")) {
    const text = raw.toString("utf8");
    return { body: text ? JSON.parse(text) : {} };
  }
  const boundary = /boundary=("?)([^";]+)\1/.exec(type)?.[2];
  if (!boundary) throw new Error("multipart without a boundary");
  const body: Record<string, any> = {};
  const files: Record<string, UploadedPart> = {};
  // Parsed by hand: grammY writes `filename=a.png` unquoted, which the Fetch API's strict parser refuses (Telegram takes it).
  for (const part of splitParts(raw, boundary)) {
    const end = part.indexOf("\r\n\r\n");
    const head = part.subarray(0, end).toString("utf8");
    const content = part.subarray(end + 4);
    const name = /name="?([^";\r\n]+)"?/i.exec(head.replace(/filename=[^;\r\n]*/i, ""))?.[1] ?? "";
    const fileName = /filename="?([^";\r\n]+)"?/i.exec(head)?.[1];
    if (fileName !== undefined) {
      files[name] = { name: fileName, type: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? "", bytes: Buffer.from(content) };
    } else {
      const value = content.toString("utf8");
      body[name] = /^[[{]/.test(value) ? JSON.parse(value) : value;
    }
  }
  return { body, files };
}

/** The parts of a multipart body, each without its delimiter and final CRLF. */
function splitParts(raw: Buffer, boundary: string): Buffer[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Buffer[] = [];
  let at = raw.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (raw.subarray(start, start + 2).toString() === "--") break;
    const next = raw.indexOf(delimiter, start);
    if (next < 0) break;
    parts.push(raw.subarray(start + 2, next - 2));
    at = next;
  }
  return parts;
}

/**
 * A Bot API server on loopback: answers getMe and sendMessage like Telegram,
 * records every call, and can be told to fail the next calls (429, 403, 5xx).
 */
export async function startFakeTelegram() {
  const calls: BotApiCall[] = [];
  const failures: Failure[] = [];
  const holds: number[] = [];
  let nextMessageId = 50_000;
  /** What the bot sent, by "<chat>:<message id>", as editMessage* and deleteMessage find it (Telegram's chat). */
  const chat = new Map<string, { text?: string; caption?: string; media: boolean; date: number; deleted: boolean }>();
  const keyOf = (body: Record<string, any>) => `${body.chat_id}:${body.message_id}`;
  const identities = new Map<string, FakeBotIdentity>();
  const revoked = new Set<string>();
  const files = new Map<string, FakeTelegramFile & { path: string; unique: string }>();
  const fileStats = new Map<string, FileStats>();
  const statsOf = (fileId: string) => {
    let stats = fileStats.get(fileId);
    if (!stats) {
      stats = { requests: 0, bytesSent: 0, headers: [] };
      fileStats.set(fileId, stats);
    }
    return stats;
  };
  const server = createServer(async (req, res) => {
    // GET /file/bot<token>/<file_path>: the bytes, like api.telegram.org serves them.
    const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(req.url ?? "");
    if (download) {
      const [, token, path] = download;
      const entry = [...files.entries()].find(([, f]) => f.path === decodeURIComponent(path));
      fileRequests.push({ token, path: decodeURIComponent(path) });
      if (!entry || entry[1].echoUrl) {
        res.writeHead(404, { "content-type": "application/json" });
        return res.end(JSON.stringify({ ok: false, error_code: 404, description: entry ? `Not Found: ${req.url}` : "Not Found" }));
      }
      return serveFile(req, res, entry[1], statsOf(entry[0]));
    }
    const parts = req.url!.split("/");
    const method = parts.pop()!;
    const token = (parts.pop() ?? "").replace(/^bot/, "");
    const { body, files: uploaded } = await readCall(req);
    calls.push({ method, body, token, ...(uploaded ? { files: uploaded } : {}) });
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(payload));
    };
    // What Telegram answers to a revoked or mistyped token, for every method.
    if (revoked.has(token)) return send(401, { ok: false, error_code: 401, description: "Unauthorized" });
    const other = identities.get(token);
    if (method === "getMe" && other) {
      return send(200, {
        ok: true,
        result: { ...other, is_bot: true, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false },
      });
    }
    if (method === "getMe") {
      return send(200, {
        ok: true,
        result: {
          id: BOT.id,
          is_bot: true,
          first_name: "Bot",
          username: BOT.username,
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        },
      });
    }
    if (method === "getFile") {
      const file = files.get(String(body.file_id));
      if (!file) return send(400, { ok: false, error_code: 400, description: "Bad Request: invalid file_id" });
      if (file.tooBig) return send(400, { ok: false, error_code: 400, description: "Bad Request: file is too big" });
      const size = file.fileSize === undefined ? file.bytes?.byteLength : file.fileSize;
      return send(200, {
        ok: true,
        result: { file_id: body.file_id, file_unique_id: file.unique, ...(size != null ? { file_size: size } : {}), file_path: file.path },
      });
    }
    const at = failures.findIndex((f) => (f.method ?? "sendMessage") === method);
    const failure = at >= 0 ? failures.splice(at, 1)[0] : undefined;
    if (failure) {
      if (failure.delayMs) await new Promise((r) => setTimeout(r, failure.delayMs));
      return send(failure.status, failure.body);
    }
    if (method === "sendMessage") {
      const hold = holds.shift();
      if (hold) await new Promise((r) => setTimeout(r, hold));
      chat.set(`${body.chat_id}:${nextMessageId}`, { text: body.text, media: false, date: Math.floor(Date.now() / 1000), deleted: false });
      return send(200, {
        ok: true,
        result: {
          message_id: nextMessageId++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(body.chat_id), type: "private" },
          text: body.text,
        },
      });
    }
    if (MEDIA_METHODS[method]) {
      // A file field is attach://<name> (grammY) or the part itself: either way the bytes are in `files`.
      const part = Object.values(uploaded ?? {})[0];
      if (!part)
        return send(400, { ok: false, error_code: 400, description: `Bad Request: there is no ${MEDIA_METHODS[method]} in the request` });
      const media =
        method === "sendPhoto"
          ? {
              photo: [
                {
                  file_id: `photo-${nextMessageId}`,
                  file_unique_id: `u${nextMessageId}`,
                  width: 90,
                  height: 90,
                  file_size: part.bytes.length,
                },
              ],
            }
          : {
              [MEDIA_METHODS[method]!]: {
                file_id: `${method}-${nextMessageId}`,
                file_unique_id: `u${nextMessageId}`,
                file_name: part.name,
                file_size: part.bytes.length,
              },
            };
      chat.set(`${body.chat_id}:${nextMessageId}`, {
        caption: body.caption,
        media: true,
        date: Math.floor(Date.now() / 1000),
        deleted: false,
      });
      return send(200, {
        ok: true,
        result: {
          message_id: nextMessageId++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(body.chat_id), type: "private" },
          ...(body.caption ? { caption: body.caption } : {}),
          ...media,
        },
      });
    }
    // Edits and deletions of the bot's own messages, with Telegram's own refusals (its exact descriptions).
    const refuse = (description: string) => send(400, { ok: false, error_code: 400, description });
    if (method === "editMessageText" || method === "editMessageCaption") {
      const sent = chat.get(keyOf(body));
      if (!sent || sent.deleted) return refuse("Bad Request: message to edit not found");
      const caption = method === "editMessageCaption";
      if (caption !== sent.media) return refuse(`Bad Request: there is no ${caption ? "caption" : "text"} in the message to edit`);
      const next = caption ? (body.caption ?? "") : body.text;
      if (next === (caption ? (sent.caption ?? "") : sent.text))
        return refuse(
          "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
        );
      if (caption) sent.caption = next;
      else sent.text = next;
      return send(200, {
        ok: true,
        result: {
          message_id: Number(body.message_id),
          date: sent.date,
          edit_date: Math.floor(Date.now() / 1000),
          chat: { id: Number(body.chat_id), type: "private" },
          ...(caption ? { caption: next } : { text: next }),
        },
      });
    }
    if (method === "deleteMessage") {
      const sent = chat.get(keyOf(body));
      if (!sent || sent.deleted) return refuse("Bad Request: message to delete not found");
      sent.deleted = true;
      return send(200, { ok: true, result: true });
    }
    // A WebhookInfo as the Bot API returns it (url and pending_update_count are always present).
    if (method === "getWebhookInfo")
      return send(200, { ok: true, result: { url: "", has_custom_certificate: false, pending_update_count: 0 } });
    return send(200, { ok: true, result: true });
  });
  // Node's 5 s keep-alive default races the client's reuse of an idle connection on a
  // loaded machine (ECONNRESET): a loopback artifact, not a platform's behaviour.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const fileRequests: { token: string; path: string }[] = [];
  let fileSeq = 0;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    sends: () => calls.filter((c) => c.method === "sendMessage"),
    /** Answers for another bot: getMe with `token` returns `identity`. */
    addBot: (token: string, identity: FakeBotIdentity) => {
      identities.set(token, identity);
    },
    /** Every later call with `token` is 401 Unauthorized (the token was revoked with @BotFather). */
    revoke: (token: string) => {
      revoked.add(token);
    },
    /** The files sent (sendPhoto, sendDocument, sendVoice, sendAudio, sendVideo), in order. */
    mediaSends: () => calls.filter((c) => MEDIA_METHODS[c.method]),
    /** A message the bot sent as the chat shows it now (after edits), or null once deleted or never sent. */
    message: (chatId: string | number, messageId: string | number) => {
      const sent = chat.get(`${chatId}:${messageId}`);
      return sent && !sent.deleted ? { text: sent.text, caption: sent.caption } : null;
    },
    /** Calls of one method, e.g. "sendChatAction" or "sendMessageDraft". */
    callsOf: (method: string) => calls.filter((c) => c.method === method),
    /** Records the next sendMessage at once but answers only after `ms` (a slow platform). */
    holdNext: (ms: number) => {
      holds.push(ms);
    },
    /** Holds a file under `fileId` (served at `photos/file_<n>.<ext>`); getFile and the download route answer for it. */
    addFile: (fileId: string, file: FakeTelegramFile, extension = "jpg") => {
      fileSeq += 1;
      files.set(fileId, { ...file, path: `photos/file_${fileSeq}.${extension}`, unique: `AQAD${fileSeq}` });
    },
    /** How often a file's bytes were asked for, and how many went out. */
    fileStats: (fileId: string) => statsOf(fileId),
    /** Every request of the download route (the token in the URL, the path). */
    fileRequests,
    failNext: (failure: Failure, times = 1) => {
      for (let i = 0; i < times; i++) failures.push(failure);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type FakeTelegram = Awaited<ReturnType<typeof startFakeTelegram>>;
