/** Issue 50 §1: a fetch of the calendar feed costs at most 3 statements, whatever the stack holds. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type QueryLoggingApi, startApiWithQueryLog } from "../support/query-log";
import { createUser, uniqueName } from "../support/users";

let api: QueryLoggingApi;
beforeAll(async () => {
  api = await startApiWithQueryLog({ INSIGHTS_FLUSH_MS: "0" });
});
afterAll(async () => {
  await api?.close();
});

test.each([0, 1, 12])("a stack of %i supplements: at most 3 statements a fetch, no cookie", async (count) => {
  const user = await createUser(api, { username: uniqueName("stmt") });
  for (let i = 0; i < count; i++) {
    const res = await api.fetch("/api/supplements", {
      method: "POST",
      body: {
        name: `S${i}`,
        quantityType: "Capsule(s)",
        frequency: "Daily",
        schedule: { times: ["morning", "evening"], days: [1, 2, 3, 4, 5, 6, 7] },
      },
      headers: { cookie: user.cookie },
    });
    expect(res.status).toBe(201);
  }
  const on = (await (
    await api.fetch("/api/calendar", { method: "PUT", body: { enabled: true }, headers: { cookie: user.cookie } })
  ).json()) as {
    url: string;
  };
  const path = new URL(on.url).pathname;
  api.queries.length = 0;
  const res = await api.fetch(path);
  expect(res.status).toBe(200);
  await res.text();
  expect(api.queries.length).toBeGreaterThan(0); // the log sees this fetch
  expect(api.queries.length).toBeLessThanOrEqual(3);
});
