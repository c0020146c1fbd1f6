import { expireAttachments, findOrphanBlobs } from "../db/attachments";
import type { Database } from "../db/database";
import { log } from "../log";
import { blobStoreFor } from "./blob-store";

const DAY_MS = 24 * 60 * 60 * 1000;
/** A blob younger than this may belong to a download finishing right now. */
const ORPHAN_GRACE_MS = 60 * 60 * 1000;

/**
 * The `mediaRetentionDays` setting, applied by the worker's housekeeping: files of
 * messages older than that lose their bytes (their attachments stay, "failed" with
 * the reason), and blobs nothing refers to any more are removed (a file several
 * conversations sent stays while one still refers to it). null keeps everything.
 * Also sweeps orphan blobs, whatever the setting.
 */
export async function applyMediaRetention(db: Database, retentionDays: number | null, now = new Date()) {
  const released =
    retentionDays === null
      ? []
      : await expireAttachments(
          db,
          new Date(now.getTime() - retentionDays * DAY_MS),
          `expired: files are kept ${retentionDays} day${retentionDays === 1 ? "" : "s"} (media retention)`,
        );
  const orphans = await findOrphanBlobs(db, new Date(now.getTime() - ORPHAN_GRACE_MS));
  const candidates = [...new Set([...released, ...orphans])];
  const removed = candidates.length ? await blobStoreFor(db).removeUnreferenced(candidates) : 0;
  if (released.length || removed) log.info("media.retention", { expired: released.length, filesRemoved: removed });
  return { expired: released.length, removed };
}
