-- Appended to every scenario's script by bench/run.ts: prints wrk's own summary
-- (requests, errors, latency percentiles) and the scenario's counters as one JSON line.
-- Scenario scripts use `scenario_setup(thread)` instead of defining setup().
local threads = {}

function setup(thread)
  thread:set("thread_index", #threads + 1)
  table.insert(threads, thread)
  if scenario_setup then
    scenario_setup(thread)
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  local counters = {}
  for _, name in ipairs(counter_names or {}) do
    local total = 0
    for _, t in ipairs(threads) do
      total = total + (t:get(name) or 0)
    end
    table.insert(counters, string.format('"%s":%d', name, total))
  end
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,'
      .. '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},'
      .. '"latency_us":{"p50":%d,"p75":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f},"counters":{%s}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(75), latency:percentile(90), latency:percentile(99),
    latency.max, latency.mean, table.concat(counters, ",")))
end
