/**
 * tests/support/query-log.ts: the statements the app's timers send (the rate limits' and the
 * insights counter's) are told apart from requests' statements, so that a timer that happens
 * to fire during a measured request does not count against it (statement-count tests in
 * supplements, sharing and image-cache rely on it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { counterOf } from "../../api/insights/counter";
import { type QueryLoggingApi, startApiWithQueryLog, TIMER_STATEMENT } from "../support/query-log";
import { createUser, uniqueName } from "../support/users";

let api: QueryLoggingApi;
beforeAll(async () => {
  // Rate limits on (the test servers' default is off), so that their flush runs.
  api = await startApiWithQueryLog({ INSIGHTS_FLUSH_MS: "0", RATE_LIMIT: "on" });
});
afterAll(async () => {
  await api?.close();
});

describe("the query log", () => {
  test("the insights counter's salt, flush and adding-up go to timerQueries, none to queries", async () => {
    const owner = await createUser(api, { username: uniqueName("qlog") });
    api.queries.length = 0;
    api.timerQueries.length = 0;
    const counter = counterOf(api.ctx);
    await counter.flush(); // the day's salt, the (empty) flush and the adding-up of earlier days
    counter.view(owner.id, { address: "192.0.2.1", agent: "Mozilla/5.0 Chrome/131.0" });
    await counter.flush();
    expect(api.queries).toEqual([]);
    expect(api.timerQueries.length).toBeGreaterThanOrEqual(3);
    expect(api.timerQueries.some((q) => /visit_salts/.test(q))).toBe(true);
    expect(api.timerQueries.some((q) => /insert into visitor_batches/.test(q))).toBe(true);
    expect(api.timerQueries.some((q) => /delete from visitor_batches/.test(q))).toBe(true);
  });

  test("the rate limits' flush goes to timerQueries; the request's own statements stay in queries", async () => {
    const owner = await createUser(api, { username: uniqueName("qlog") });
    api.queries.length = 0;
    api.timerQueries.length = 0;
    const res = await api.fetch(`/api/profile/${owner.username}`);
    expect(res.status).toBe(200);
    expect(api.queries.length).toBeGreaterThan(0);
    expect(api.queries.some((q) => TIMER_STATEMENT.test(q))).toBe(false);
    const deadline = Date.now() + 5000;
    while (!api.timerQueries.some((q) => /rate_limits/.test(q)) && Date.now() < deadline) await Bun.sleep(100);
    expect(api.timerQueries.some((q) => /insert into "rate_limits"/.test(q))).toBe(true);
  }, 10_000);

  test("a request's statements are never taken for a timer's", () => {
    for (const statement of [
      'insert into "supplements" ("user_id", "name") values ($1, $2)',
      'select "id" from "users" where "users"."username" = $1',
      'with inserted as ( insert into "card_versions" (user_id) values ($1) returning 1) select 1',
      'update "supplements" set "sort_order" = 1',
    ]) {
      expect(TIMER_STATEMENT.test(statement)).toBe(false);
    }
  });
});
