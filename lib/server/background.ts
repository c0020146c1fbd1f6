import { env } from "../env";
import { log } from "../log";
import { appContext } from "./context";

/** Validates the environment and starts the in-process worker. */
export async function startBackground() {
  env();
  const ctx = await appContext();
  log.info("server.ready", { database: ctx.env.DATABASE_URL.startsWith("file:") ? "sqlite" : "postgresql" });
}
