import { type Api, GrammyError } from "grammy";
import { downloadBytes } from "../../media/fetch-http";
import type { MediaDownload, MediaDownloadRequest } from "../../media/types";
import { toDeliveryError } from "./delivery-error";

const DEFAULT_API_ROOT = "https://api.telegram.org";

/**
 * Telegram's two steps: getFile (the file_id stays valid; the path it gives lasts
 * about an hour, so it is asked for at each attempt), then
 * `<api root>/file/bot<token>/<file_path>`. The Bot API refuses files over 20 MB
 * ("file is too big"): that is too_large, as a declared size over the limit is
 * before any request. The token is in the URL; a reason that repeats it is scrubbed where it is
 * recorded (lib/media/fetch-job.ts).
 */
export function fileDownloader(api: Api, token: string, apiRoot: string | undefined) {
  return async (request: MediaDownloadRequest): Promise<MediaDownload> => {
    if (request.declaredSize && request.declaredSize > request.maxBytes)
      return { ok: false, outcome: "too_large", sizeBytes: request.declaredSize };
    let file: Awaited<ReturnType<Api["getFile"]>>;
    try {
      file = await api.getFile(request.sourceRef, request.signal as Parameters<Api["getFile"]>[1]);
    } catch (error) {
      if (error instanceof GrammyError && /file is too big/i.test(error.description))
        return { ok: false, outcome: "too_large", sizeBytes: request.declaredSize ?? null };
      const failure = toDeliveryError(error);
      return {
        ok: false,
        outcome: failure.retryable || request.signal.aborted ? "retry" : "failed",
        reason: `getFile: ${failure.message}`,
      };
    }
    if (file.file_size && file.file_size > request.maxBytes) return { ok: false, outcome: "too_large", sizeBytes: file.file_size };
    if (!file.file_path) return { ok: false, outcome: "failed", reason: "Telegram gave no file_path for the file" };
    const root = (apiRoot ?? DEFAULT_API_ROOT).replace(/\/+$/, "");
    const path = file.file_path.split("/").map(encodeURIComponent).join("/");
    return downloadBytes(`${root}/file/bot${token}/${path}`, { maxBytes: request.maxBytes, signal: request.signal, label: "Telegram" });
  };
}
