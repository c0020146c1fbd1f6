import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["tests/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests each open their own database; two workers fit 2 cores.
    pool: "forks",
    maxWorkers: 2,
    env: { NODE_ENV: "test", LOG_LEVEL: "error" },
  },
});
