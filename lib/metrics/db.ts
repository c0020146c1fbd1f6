import type { DbObserver, DbTimings } from "../db/observed";
import { metrics } from "./registry";

/**
 * The database's statements and their times as metrics (statements per answered turn,
 * docs/BENCHMARKS.md), handed to `openDb` by the server. Reads the registry at each
 * statement: without metrics nothing is timed.
 */
export const dbMetrics: DbObserver = {
  statement: (dialect, path) => metrics()?.dbStatements.inc({ dialect, path }),
  timings: () => {
    const m = metrics();
    return m ? timingsOf(m) : null;
  },
};

type Registry = NonNullable<ReturnType<typeof metrics>>;
const timings = new WeakMap<Registry, DbTimings>();

/** One `DbTimings` per registry, not one per statement. */
function timingsOf(m: Registry): DbTimings {
  let t = timings.get(m);
  if (!t) {
    t = {
      statement: (dialect, kind, seconds) => m.dbStatementDuration.observe({ dialect, kind }, seconds),
      poolWait: (dialect, seconds) => m.dbPoolWait.observe({ dialect }, seconds),
    };
    timings.set(m, t);
  }
  return t;
}
