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
 * that reads as "database unavailable" (api/http.ts isDatabaseUnavailable) instead.
 */
export async function withTroubleDeadline<T>(work: Promise<T>): Promise<T> {
  let entry: { started: number; expire: () => void } | undefined;
  const expired = new Promise<typeof DEADLINE>((resolve) => {
    entry = { started: Date.now(), expire: () => resolve(DEADLINE) };
    waiting.add(entry);
  });
  try {
    const answer = await Promise.race([work, expired]);
    if (answer !== DEADLINE) return answer;
    work.catch(() => {}); // abandoned: its outcome no longer matters
    throw Object.assign(new Error(`the database did not answer within ${TROUBLE_DEADLINE_MS} ms`), {
      code: "ETIMEDOUT",
    });
  } finally {
    if (entry) waiting.delete(entry);
  }
}

const DEADLINE = Symbol("deadline");
