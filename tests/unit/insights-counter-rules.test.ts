/**
 * The insights counter's pure rules (api/insights/counter.ts): which request may count at all
 * (`countable`: method × User-Agent) and the visitor hash (`visitorHash`) against the reference
 * written out in tests/support/visitor-hash.ts. The batching and flushing are in
 * tests/api/insights-counter-batch-rules.test.ts. StrykerJS runs both per mutant of the counter.
 */
import { describe, expect, test } from "bun:test";
import { countable, visitorHash } from "../../api/insights/counter";
import { storedVisitorHash } from "../support/visitor-hash";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148";

/** [who, User-Agent header (undefined: none sent), a browser?] */
const AGENTS: [string, string | undefined, boolean][] = [
  ["a desktop browser", BROWSER, true],
  ["a phone browser", PHONE, true],
  ["Googlebot", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", false],
  ["a link-preview fetcher", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", false],
  ["curl", "curl/8.5.0", false],
  ["an empty User-Agent", "", false],
  ["a blank User-Agent", "   ", false],
  // Headers strip spaces and tabs already; these blanks get through to the counter.
  ["a User-Agent of a no-break space", "\u00a0", false],
  ["a User-Agent of vertical tab and form feed", "\v\f", false],
  ["no User-Agent header", undefined, false],
];
const METHODS: [string, boolean][] = [
  ["GET", true],
  ["HEAD", false],
  ["POST", false],
  ["PUT", false],
  ["OPTIONS", false],
];

const request = (method: string, agent: string | undefined) =>
  new Request("http://stacktrack.test/someone", {
    method,
    headers: agent === undefined ? {} : { "user-agent": agent },
  });

describe("countable: a GET from a browser, nothing else", () => {
  test.each(
    METHODS.flatMap(([method, get]) =>
      AGENTS.map(([who, agent, browser]) => [method, who, get && browser, agent] as const),
    ),
  )("%s by %s: countable %p", (method, _who, expected, agent) => {
    // Twice: the second answer may come from the remembered verdict.
    expect(countable(request(method, agent))).toBe(expected);
    expect(countable(request(method, agent))).toBe(expected);
  });

  test("a remembered verdict is per User-Agent: a bot's does not stick to the next browser, nor the other way", () => {
    for (let i = 0; i < 3; i++) {
      expect(countable(request("GET", `${BROWSER} Probe/${i}`))).toBe(true);
      expect(countable(request("GET", `Googlebot/2.1 Probe/${i}`))).toBe(false);
      expect(countable(request("GET", `${BROWSER} Probe/${i}`))).toBe(true);
    }
  });

  test("past a thousand User-Agents the verdicts stay right", () => {
    for (let i = 0; i < 2500; i++) {
      expect(countable(request("GET", `${PHONE} Many/${i}`))).toBe(true);
      if (i % 100 === 0) expect(countable(request("GET", `bingbot/2.0 Many/${i}`))).toBe(false);
    }
    expect(countable(request("GET", `${PHONE} Many/0`))).toBe(true);
  });
});

describe("visitorHash: HMAC-SHA-256(salt, User-Agent, profile, address), the first 16 bytes in hex", () => {
  const SALT_A = new Uint8Array(32).fill(7);
  const SALT_B = Uint8Array.from({ length: 32 }, (_, i) => i);
  const ROWS: [string, Uint8Array, string, string, string][] = [
    ["an IPv4 visitor", SALT_A, BROWSER, "user-1", "203.0.113.7"],
    ["the same visitor, another day's salt", SALT_B, BROWSER, "user-1", "203.0.113.7"],
    ["an IPv6 visitor", SALT_A, PHONE, "user-2", "2001:db8::1"],
    ["no address known", SALT_A, BROWSER, "user-1", ""],
    ["a profile id with odd characters", SALT_B, PHONE, 'a"b\\c,{d}', "10.0.0.1"],
  ];

  test.each(ROWS)("%s", (_what, salt, agent, profile, address) => {
    const hash = visitorHash(salt, agent, profile, address);
    expect(hash).toMatch(/^[0-9a-f]{32}$/);
    expect(hash).toBe(storedVisitorHash(salt, address, agent, profile));
  });

  test("any one part changed is another visitor; the parts cannot be shifted into each other", () => {
    const base = visitorHash(SALT_A, BROWSER, "user-1", "10.0.0.1");
    const others = [
      visitorHash(SALT_B, BROWSER, "user-1", "10.0.0.1"),
      visitorHash(SALT_A, PHONE, "user-1", "10.0.0.1"),
      visitorHash(SALT_A, BROWSER, "user-2", "10.0.0.1"),
      visitorHash(SALT_A, BROWSER, "user-1", "10.0.0.2"),
      visitorHash(SALT_A, `${BROWSER}\nuser-1`, "", "10.0.0.1"),
    ];
    expect(new Set([base, ...others]).size).toBe(others.length + 1);
    expect(visitorHash(SALT_A, BROWSER, "user-1", "10.0.0.1")).toBe(base);
  });
});
