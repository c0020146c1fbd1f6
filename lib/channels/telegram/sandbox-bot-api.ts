import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SANDBOX_FILE_ID, SANDBOX_MAX_FILE_BYTES } from "./sandbox-files";

/** Where Telegram keeps each kind of file (the folder and extension of its file_path). */
const PATHS = { photo: ["photos", "jpg"], document: ["documents", "bin"], voice: ["voice", "oga"] } as const;
const FILE_PATH = /^\/file\/bot([^/]+)\/(photos|documents|voice)\/([0-9a-f]{64})\.(jpg|bin|oga)$/;

export type SandboxBotApi = { root: string; close(): Promise<void> };

/**
 * The part of the Bot API a bot uses to fetch a user's file, served by the sandbox
 * on loopback for the files the simulator's users send: `getFile` (a file_id in, its
 * file_path out; over 20 MB "file is too big", an unknown id refused as Telegram
 * does), then `GET /file/bot<token>/<file_path>` with the bytes. The media fetch job
 * reaches it through the Telegram adapter's own downloader, so a simulated photo takes
 * the real path: getFile, download, size limit, inspection, storage. Unref'd: it
 * never keeps the process alive.
 */
export async function startSandboxBotApi(token: string, read: (sha256: string) => Promise<Uint8Array | null>): Promise<SandboxBotApi> {
  const server = createServer((request, response) => {
    handle(request, response).catch(() => answer(response, 500, { ok: false, error_code: 500, description: "Internal Server Error" }));
  });
  async function handle(request: IncomingMessage, response: ServerResponse) {
    const path = (request.url ?? "").split("?")[0];
    if (request.method === "POST" && path === `/bot${token}/getFile`) return getFile(await bodyOf(request), response);
    const file = FILE_PATH.exec(path);
    if (request.method === "GET" && file && decoded(file[1]) === token) {
      const bytes = await read(file[3]);
      if (!bytes) return answer(response, 404, { ok: false, error_code: 404, description: "Not Found" });
      response.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.byteLength });
      return response.end(bytes);
    }
    return answer(response, 404, { ok: false, error_code: 404, description: "Not Found" });
  }
  async function getFile(body: unknown, response: ServerResponse) {
    const id = (body as { file_id?: unknown } | null)?.file_id;
    const match = typeof id === "string" ? SANDBOX_FILE_ID.exec(id) : null;
    if (!match) return answer(response, 400, { ok: false, error_code: 400, description: "Bad Request: invalid file_id" });
    const [, kind, sha256] = match as unknown as [string, keyof typeof PATHS, string];
    const bytes = await read(sha256);
    if (!bytes)
      return answer(response, 400, {
        ok: false,
        error_code: 400,
        description: "Bad Request: wrong file_id or the file is temporarily unavailable",
      });
    if (bytes.byteLength > SANDBOX_MAX_FILE_BYTES)
      return answer(response, 400, { ok: false, error_code: 400, description: "Bad Request: file is too big" });
    const [folder, extension] = PATHS[kind];
    return answer(response, 200, {
      ok: true,
      result: {
        file_id: id,
        file_unique_id: sha256.slice(0, 16),
        file_size: bytes.byteLength,
        file_path: `${folder}/${sha256}.${extension}`,
      },
    });
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    root: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A path segment decoded; null when its percent-encoding is malformed (a 404, not a 500). */
function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** grammY posts a method's parameters as JSON; a few kilobytes at most. */
async function bodyOf(request: IncomingMessage): Promise<unknown> {
  let text = "";
  for await (const chunk of request) {
    text += chunk;
    if (text.length > 64 * 1024) return null;
  }
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function answer(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}
