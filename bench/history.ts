/**
 * Issue 36's history measure, on its own (not part of `bun run bench`): starts `bun server.ts`
 * (built app) on DATABASE_URL (a fresh database), signs one user up, gives them five daily
 * supplements and a year of doses, then runs `GET /api/history` of 366 days from CONNECTIONS
 * (50) concurrent clients for SECONDS (10), RUNS (3) times; prints each run's req/s and the
 * median.   DATABASE_URL=postgres://… PORT=4400 bun bench/history.ts
 */
import postgres from "postgres";

const { PORT = "4400", CONNECTIONS = "50", SECONDS = "10", RUNS = "3" } = process.env;
const [port, connections, seconds, runs] = [+PORT, +CONNECTIONS, +SECONDS, +RUNS];
const base = `http://127.0.0.1:${port}`;
const origin = `http://localhost:${port}`;
const server = Bun.spawn(["bun", "server.ts"], {
  env: { ...process.env, PORT: String(port), PUBLIC_ORIGIN: origin, LOG_LEVEL: "warn" },
  stdout: "inherit",
  stderr: "inherit",
});
const post = (path: string, body: unknown, cookie = "") =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: origin, cookie },
    body: JSON.stringify(body),
  });
try {
  for (let up = false; !up; await Bun.sleep(200))
    up = (await fetch(`${base}/api/health`).catch(() => null))?.ok ?? false;
  const res = await post("/api/auth/sign-up/email", {
    email: `h${Date.now()}@example.com`,
    password: "history-1",
    name: "H",
  });
  const userId = ((await res.json()) as { user: { id: string } }).user.id;
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  for (const times of [["anytime"], ["morning", "evening"], ["morning"], ["bedtime"], ["afternoon"]]) {
    const schedule = { times, days: [1, 2, 3, 4, 5, 6, 7] };
    const supplement = { name: times.join("+"), quantityType: "Capsule(s)", frequency: "daily", schedule };
    const added = await post("/api/supplements", supplement, cookie);
    if (added.status !== 201) throw new Error(`POST /api/supplements: ${added.status}`);
  }
  const sql = postgres(process.env.DATABASE_URL ?? "", { max: 1, onnotice: () => {} });
  await sql`update schedule_versions set valid_from = valid_from - 365 where user_id = ${userId}`;
  await sql`
    insert into intakes (user_id, date, supplement_id, time, status, name, at)
    select v.user_id, d::date, v.supplement_id, t, case when random() < 0.9 then 'taken' else 'skipped' end, v.name, d
    from schedule_versions v, generate_series(v.valid_from::timestamp, current_date - 1, '1 day') d,
      jsonb_array_elements_text(v.schedule -> 'times') t
    where v.user_id = ${userId} and random() < 0.95`;
  await sql`vacuum analyze`.finally(() => sql.end());
  const today = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.parse(today) - 365 * 86_400_000).toISOString().slice(0, 10);
  const path = `${base}/api/history?from=${from}&to=${today}`;
  const check = await fetch(path, { headers: { cookie } });
  const days = ((await check.json()) as { days: unknown[] }).days.length;
  if (check.status !== 200 || days !== 366) throw new Error(`history: ${check.status}, ${days} days`);
  const rates: number[] = [];
  for (let run = 1; run <= runs; run++) {
    let [done, failed] = [0, 0];
    const end = performance.now() + seconds * 1000;
    const client = async () => {
      while (performance.now() < end) {
        const r = await fetch(path, { headers: { cookie } });
        await r.arrayBuffer();
        r.status === 200 ? done++ : failed++;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: connections }, client));
    rates.push(done / ((performance.now() - started) / 1000));
    console.log(`run ${run}: ${rates.at(-1)?.toFixed(0)} req/s (${done} answered, ${failed} failed)`);
  }
  console.log(`median: ${[...rates].sort((a, b) => a - b)[Math.floor(runs / 2)]?.toFixed(0)} req/s`);
} finally {
  server.kill();
  await server.exited;
}
