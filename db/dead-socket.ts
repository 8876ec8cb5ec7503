/**
 * postgres.js 3.4 under Bun: when Postgres goes away in the middle of a transaction, the
 * ROLLBACK that follows is queued on the dead connection, and a timer then writes to its
 * socket, which is gone (`socket.write` on null, postgres/src/connection.js). The query
 * has already failed (the request answers 503), but the throw is uncaught and ended the
 * whole process, and the connection it happened on stays stuck: later queries queue on it
 * and are never sent (tests/api/faults.test.ts). Exactly that error is survived and the
 * pool is replaced (db/client.ts `reset`); any other uncaught exception still ends the
 * process (server.ts).
 */
import type { Database } from "./client";

/** Whether an uncaught error is postgres.js's write to the socket of a dead connection. */
export function isDeadSocketWrite(error: unknown): boolean {
  const stack = error instanceof Error ? (error.stack ?? "") : "";
  return (
    error instanceof TypeError &&
    /socket\.write/.test(error.message) &&
    /postgres[\\/]src[\\/]connection\.js/.test(stack)
  );
}

/**
 * For the process's uncaughtException handler: true when `error` is that write (the pool of
 * `database()`, once it is open, is then replaced, at most every 500 ms), false for anything else.
 */
export function deadSocketSurvivor(database: () => Database | undefined): (error: unknown) => boolean {
  let lastReset = 0;
  return (error) => {
    if (!isDeadSocketWrite(error)) return false;
    // That connection is stuck for good (queries queue on it unsent): a fresh pool.
    if (Date.now() - lastReset > 500) {
      lastReset = Date.now();
      database()?.reset?.();
    }
    return true;
  };
}
