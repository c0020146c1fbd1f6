import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// By hand only (not part of `npm test`): runs the product over the real payloads in
// ../shared/corpus (or CORPUS_DIR) and prints what was stored, for review.
//   npx vitest run --config scripts/corpus/vitest.config.mts
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  resolve: { alias: { "@": fileURLToPath(new URL("../..", import.meta.url)) } },
  test: { include: ["scripts/corpus/*.run.ts"], environment: "node", testTimeout: 120_000, env: { NODE_ENV: "test", LOG_LEVEL: "silent" } },
});
