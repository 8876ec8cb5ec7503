/** The rows of a raw `db.execute` result: postgres.js gives an array, PGlite an object with `rows`. */
export const rowsOf = <T = Record<string, unknown>>(result: unknown): T[] =>
  (Array.isArray(result) ? result : ((result as { rows?: T[] }).rows ?? [])) as T[];
