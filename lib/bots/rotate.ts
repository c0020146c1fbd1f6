import { listSealed, writeSealed } from "../db/bots";
import type { Database } from "../db/database";
import { log } from "../log";
import type { SecretBox } from "./secret-box";

/**
 * Key rotation at start: every bot secret still sealed with the previous key
 * (SWITCHBOARD_SECRET_KEY_PREVIOUS) is opened with it and sealed again with the
 * current one. Idempotent: once nothing is stale, the previous key can go.
 */
export async function resealStale(db: Database, box: SecretBox): Promise<number> {
  let resealed = 0;
  for (const row of await listSealed(db)) {
    const again = (value: string | null) => (value && box.isStale(value) ? box.seal(box.open(value)) : value);
    const next = { credentials: again(row.credentials), webhookSecret: again(row.webhookSecret), modelApiKey: again(row.modelApiKey) };
    if (next.credentials === row.credentials && next.webhookSecret === row.webhookSecret && next.modelApiKey === row.modelApiKey) continue;
    await writeSealed(db, row.id, next);
    resealed++;
  }
  if (resealed) log.info("secrets.rotated", { bots: resealed });
  return resealed;
}
