/**
 * Fail fast while the database is in trouble: a query that waits on a dying connection
 * (or on a reconnect that backs off) would keep its request hanging for the whole outage.
 * Once the database has failed (an answer was a 503, or the broken write of
 * db/dead-socket.ts happened), for the next 30 s any request still unanswered after 2 s is
 * answered 503 (its work, if it ever completes, is discarded). In normal operation nothing
 * is ever cut short.
 */
const TROUBLE_WINDOW_MS = 30_000;
const TROUBLE_DEADLINE_MS = 2_000;
let troubleUntil = 0;
const waiting = new Set<{ started: number; expire: () => void }>();
let ticker: ReturnType<typeof setInterval> | undefined;

/** The database just failed: cut slow requests short for the next 30 s. */
export function markDatabaseTrouble() {
  troubleUntil = Date.now() + TROUBLE_WINDOW_MS;
  ticker ??= setInterval(() => {
    const now = Date.now();
    if (now > troubleUntil) {
      clearInterval(ticker);
      ticker = undefined;
      return;
    }
    for (const entry of waiting) if (now - entry.started > TROUBLE_DEADLINE_MS) entry.expire();
  }, 200);
  ticker.unref?.();
}

/**
 * The work's answer; while the database is in trouble and the work takes too long, an error
 * that reads as "database unavailable" (api/http.ts isDatabaseUnavailable) instead. (One
 * promise per request: no race, no timer; the ticker above looks at the waiting set only
 * while in trouble.)
 */
export function withTroubleDeadline<T>(work: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const entry = {
      started: Date.now(),
      expire: () => {
        waiting.delete(entry);
        work.catch(() => {}); // abandoned: its outcome no longer matters
        reject(
          Object.assign(new Error(`the database did not answer within ${TROUBLE_DEADLINE_MS} ms`), {
            code: "ETIMEDOUT",
          }),
        );
      },
    };
    waiting.add(entry);
    work.then(
      (answer) => {
        waiting.delete(entry);
        resolve(answer);
      },
      (error) => {
        waiting.delete(entry);
        reject(error);
      },
    );
  });
}
