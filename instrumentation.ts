/**
 * Runs once when the server starts: validates the environment (fail fast, naming
 * the variable) and starts the background worker that processes envelopes.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startBackground } = await import("./lib/server/background");
  await startBackground();
}
