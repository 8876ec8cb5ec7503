/**
 * Ingredients are the owner's only (issue 47): every public answer about a profile (its JSON,
 * from the database and from memory, the card's facts, the QR code, /go/{id}; through the built
 * server also the page and the card image) is byte for byte what it was before the owner entered
 * ingredients; the export (JSON and CSV) has them; Undo of a delete restores them; deleting the
 * account deletes them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { resetClock } from "../../api/lib/clock";
import { cardFacts } from "../../api/sharing/card-facts";
import { rowsOf } from "../../db/rows";
import { type ServerProcess, skipWithoutBuild, startServer } from "../support/process";
import { type ApiRequestInit, buildRequest, startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs } from "../support/tracking-api";
import { type ApiUser, createUser, uniqueName } from "../support/users";

const LINES = [
  { nutrient: "vitamin-d", amount: 2000, unit: "IU" },
  { name: "Secretwort", amount: 777, unit: "mg" },
];
const WORDS = ["ingredients", "servingSize", "vitamin-d", "Secretwort", "777", "mcg"];
const BODY = { name: "Multi", quantityType: "Tablet(s)", frequency: "daily", doseAmount: 2 };

/** Public answers about `name` (each twice: the second from memory where there is a cache). */
async function publicAnswers(api: TestApi, paths: string[], withFacts: boolean): Promise<string[]> {
  const out: string[] = [];
  for (const path of paths) {
    for (let i = 0; i < 2; i++) {
      const res = await api.fetch(path, { redirect: "manual" });
      const body = Buffer.from(await res.arrayBuffer()).toString("base64");
      out.push(`${path} ${res.status} ${res.headers.get("location") ?? ""} ${body}`);
    }
  }
  if (withFacts) out.push(JSON.stringify(cardFacts(await (await api.fetch(paths[0] as string)).json())));
  return out;
}

/** The owner shows everything a page may show: schedule, notes, links. */
async function publicOwner(api: TestApi): Promise<{ owner: ApiUser; name: string; id: number }> {
  const name = uniqueName("ingr");
  const owner = await createUser(api, { username: name, premium: api.ctx !== undefined });
  const as = requestsAs(() => api);
  expect((await as(owner, "/api/profile", { method: "PUT", body: { showSchedule: true } })).status).toBe(200);
  const id = await addSupplementAs(api, owner, {
    ...BODY,
    schedule: { times: ["morning"], days: [1, 2, 3, 4, 5, 6, 7] },
  });
  return { owner, name, id };
}

describe("ingredients are private", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(async () => {
    resetClock();
    await api?.close();
  });
  afterEach(() => resetClock());
  const as = requestsAs(() => api);

  test("public JSON, card facts, QR and /go do not change; the export has them; the account's deletion removes them", async () => {
    const { owner, name, id } = await publicOwner(api);
    const paths = [`/api/profile/${name}`, `/${name}/qr.svg`, `/go/${id}`];
    const before = await publicAnswers(api, paths, true);
    const put = await as(owner, `/api/supplements/${id}`, {
      method: "PUT",
      body: { ...BODY, servingSize: 2, ingredients: LINES },
    });
    expect(put.status).toBe(200);
    const after = await publicAnswers(api, paths, true);
    expect(after).toEqual(before);
    for (const answer of after) {
      const text = Buffer.from(answer.split(" ").at(-1) ?? "", "base64").toString();
      for (const word of WORDS)
        expect([answer.slice(0, 40), word, text.includes(word)]).toEqual([answer.slice(0, 40), word, false]);
    }

    // The export: JSON with the stored lines, CSV with a readable column.
    const doc = (await (await as(owner, "/api/account/export?format=json")).json()) as {
      supplements: Record<string, unknown>[];
    };
    expect(doc.supplements[0]).toMatchObject({
      servingSize: 2,
      ingredients: [
        { nutrient: "vitamin-d", amount: 50, unit: "mcg", entered: { amount: 2000, unit: "IU" } },
        { name: "Secretwort", amount: 777, unit: "mg", entered: { amount: 777, unit: "mg" } },
      ],
    });
    const csv = await (await as(owner, "/api/account/export?format=csv")).text();
    expect(csv).toContain("Vitamin D 50 mcg (2000 IU); Secretwort 777 mg");

    // Deleting the account deletes them with the supplement and its versions.
    const gone = await as(owner, "/api/account", {
      method: "DELETE",
      body: { password: owner.password, confirm: name },
    });
    expect(gone.status).toBe(200);
    for (const table of ["supplements", "schedule_versions"]) {
      const result = await api.ctx.database.db.execute(
        sql.raw(`select count(*)::int as n from ${table} where user_id = '${owner.id}'`),
      );
      expect([table, Number(rowsOf(result)[0]?.n)]).toEqual([table, 0]);
    }
  });

  test("Undo of a delete restores the lines, the serving size and today's totals", async () => {
    const owner = await createUser(api);
    const id = await addSupplementAs(api, owner, { ...BODY, servingSize: 2, ingredients: LINES });
    const read = async () => (await (await as(owner, "/api/supplements")).json()) as Record<string, unknown>[];
    const totals = async () => (await (await as(owner, "/api/stack/totals")).json()) as { nutrients: unknown[] };
    const [before] = await read();
    const totalsBefore = await totals();
    expect(totalsBefore.nutrients).toHaveLength(2);
    expect((await as(owner, `/api/supplements/${id}`, { method: "DELETE" })).status).toBe(204);
    expect((await totals()).nutrients).toEqual([]);
    expect((await as(owner, `/api/supplements/${id}/restore`, { method: "POST" })).status).toBe(201);
    const [after] = await read();
    expect(after?.ingredients).toEqual(before?.ingredients);
    expect(after?.servingSize).toBe(2);
    expect(await totals()).toEqual(totalsBefore);
  });
});

const skip = skipWithoutBuild("ingredients-private.test.ts");

describe.skipIf(skip)("the public page and card image through server.ts", () => {
  let dir: string;
  let server: ServerProcess;
  let api: TestApi;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "ingredients-page-"));
    server = await startServer({ DATA_DIR: join(dir, "data") });
    const url = server.url;
    api = {
      url,
      origin: url,
      ctx: undefined as unknown as TestApi["ctx"],
      fetch: (path: string, init?: ApiRequestInit) => fetch(buildRequest(url, url, path, init)),
      close: async () => {},
    };
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("the page and its card image are byte for byte unchanged by ingredients", async () => {
    const { owner, name, id } = await publicOwner(api);
    const card = async () => {
      const page = await (await api.fetch(`/${name}`)).text();
      return new URL(/<meta property="og:image" content="([^"]+)"/.exec(page)?.[1] as string).pathname;
    };
    const paths = [`/${name}`, await card()];
    const before = await publicAnswers(api, paths, false);
    const put = await requestsAs(() => api)(owner, `/api/supplements/${id}`, {
      method: "PUT",
      body: { ...BODY, servingSize: 2, ingredients: LINES },
    });
    expect(put.status).toBe(200);
    expect(await card()).toBe(paths[1] as string);
    expect(await publicAnswers(api, paths, false)).toEqual(before);
  });
});
