import { AppError } from "../errors";

/** Who holds a stream: a signed-in session (by its id) or the API token. */
export type StreamHolder = { sessionId: number } | "api-token";

export type LiveStreamLimits = {
  /** Streams one session (or the API token) may hold open at once. */
  perHolder: number;
  /** Streams this process serves at once, everyone's together. */
  total: number;
};

/**
 * The open live-event streams of this process, counted per holder and in all. An
 * open stream costs memory and a socket for as long as it lasts, so both are
 * capped: past a cap a new stream is refused (the page polls instead) rather than
 * an old one dropped, which would make two tabs evict each other forever. Signing
 * out ends the session's streams here at once (`endSession`).
 */
export class LiveStreams {
  private readonly byHolder = new Map<string, Set<AbortController>>();
  private open = 0;

  constructor(readonly limits: LiveStreamLimits) {}

  /**
   * Takes a place for one stream or throws: 429 past the holder's cap, 503 past the
   * process's. `end` aborts when the stream must end (its session signed out);
   * `release` gives the place back (call it once the stream has ended, whatever ended it).
   */
  admit(holder: StreamHolder): { end: AbortSignal; release: () => void } {
    const key = holderKey(holder);
    const mine = this.byHolder.get(key) ?? new Set();
    if (mine.size >= this.limits.perHolder) {
      throw new AppError("rate_limited", `at most ${this.limits.perHolder} live-event streams per session; close another tab first`);
    }
    if (this.open >= this.limits.total) {
      throw new AppError("unavailable", `the server holds its maximum of ${this.limits.total} live-event streams; pages poll instead`);
    }
    const stream = new AbortController();
    mine.add(stream);
    this.byHolder.set(key, mine);
    this.open++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.open--;
      mine.delete(stream);
      if (mine.size === 0) this.byHolder.delete(key);
    };
    return { end: stream.signal, release };
  }

  /** Ends every stream of a session (it signed out). */
  endSession(sessionId: number) {
    for (const stream of [...(this.byHolder.get(holderKey({ sessionId })) ?? [])]) stream.abort();
  }

  /** Streams open now, in all. */
  get size() {
    return this.open;
  }
}

const holderKey = (holder: StreamHolder) => (holder === "api-token" ? "token" : `session:${holder.sessionId}`);
