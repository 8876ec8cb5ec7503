import { afterEach, expect, test } from "bun:test";
import { markDatabaseTrouble, recoverWith, withTroubleDeadline } from "../../server/database-trouble";

afterEach(() => recoverWith(undefined));

test("in trouble, recovery is tried every 250 ms until the database answers; then not again for 2 s", async () => {
  let calls = 0;
  let answers = false;
  recoverWith(async () => {
    calls++;
    return answers;
  });
  markDatabaseTrouble();
  markDatabaseTrouble(); // one watch, however many failures
  await Bun.sleep(900);
  expect(calls).toBeGreaterThanOrEqual(2);
  expect(calls).toBeLessThanOrEqual(4);

  answers = true;
  await Bun.sleep(400);
  const recovered = calls;
  await Bun.sleep(600);
  expect(calls).toBe(recovered); // the watch ended with the answer

  // Failures of requests still waiting on the old pool start no new watch...
  markDatabaseTrouble();
  await Bun.sleep(500);
  expect(calls).toBe(recovered);
  // ...trouble later does (a pool stuck again while the server answers).
  await Bun.sleep(1200);
  markDatabaseTrouble();
  await Bun.sleep(500);
  expect(calls).toBe(recovered + 1);
}, 10_000);

test("a recovery that throws counts as 'not yet'", async () => {
  let calls = 0;
  recoverWith(async () => {
    calls++;
    if (calls < 3) throw new Error("connection refused");
    return true;
  });
  await Bun.sleep(2100); // past the quiet time of the test above
  markDatabaseTrouble();
  await Bun.sleep(1300);
  expect(calls).toBe(3);
}, 10_000);

test("in trouble, work slower than 2 s is answered 'database unavailable'; quicker work is untouched", async () => {
  markDatabaseTrouble();
  const quick = withTroubleDeadline(Bun.sleep(100).then(() => "done"));
  const slow = withTroubleDeadline(Bun.sleep(5000).then(() => "late"));
  expect(await quick).toBe("done");
  const started = performance.now();
  const error = (await slow.catch((e: unknown) => e)) as { code?: string };
  expect(error.code).toBe("ETIMEDOUT");
  expect(performance.now() - started).toBeLessThan(2600);
}, 10_000);
