/**
 * Fail fast while the database is in trouble: a query that waits on a dying connection
 * (or on a reconnect that backs off) would keep its request hanging for the whole outage.
 * Once the database has failed (an answer was a 503, or the broken write of
 * db/dead-socket.ts happened), for the next 30 s any request still unanswered after 2 s is
 * answered 503 (its work, if it ever completes, is discarded). In normal operation nothing
 * is ever cut short. On Postgres, the pool is also made anew once the server answers again
 * (`recoverWith` below).
 */
const TROUBLE_WINDOW_MS = 30_000;
const TROUBLE_DEADLINE_MS = 2_000;
/** How often, while in trouble, a fresh connection is tried (db/client.ts `recover`). */
const RECOVERY_PROBE_MS = 250;
/** After the pool was replaced, trouble from requests begun before it starts no new watch. */
const RECOVERY_QUIET_MS = 2_000;
let troubleUntil = 0;
const waiting = new Set<{ started: number; expire: () => void }>();
let ticker: ReturnType<typeof setInterval> | undefined;

let recover: (() => Promise<boolean>) | undefined;
let watching = false;
let recoveredAt = 0;

/**
 * Postgres: while in trouble, try `recovery` every 250 ms until it reports the database
 * answers again (it has then replaced the connection pool, so no connection left stuck by the
 * outage serves a later request). Trouble that began in the 2 s after a replacement (requests
 * still waiting on the old pool) starts no new watch; trouble after that does, so a pool that
 * goes stuck while the server answers is replaced too.
 */
export function recoverWith(recovery: (() => Promise<boolean>) | undefined) {
  recover = recovery;
}

function watchForRecovery() {
  const probe = recover;
  if (!probe || watching || Date.now() - recoveredAt < RECOVERY_QUIET_MS) return;
  watching = true;
  void (async () => {
    try {
      while (Date.now() <= troubleUntil) {
        await Bun.sleep(RECOVERY_PROBE_MS);
        if (await probe().catch(() => false)) {
          recoveredAt = Date.now();
          return;
        }
      }
    } finally {
      watching = false;
    }
  })();
}

/** The database just failed: cut slow requests short for the next 30 s. */
export function markDatabaseTrouble() {
  troubleUntil = Date.now() + TROUBLE_WINDOW_MS;
  watchForRecovery();
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
 * that reads as "database unavailable" (api/lib/http.ts isDatabaseUnavailable) instead. (One
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
