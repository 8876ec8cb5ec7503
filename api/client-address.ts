/**
 * The client's address: the one place that decides it. Every rate limit (better-auth's,
 * through the header the app middleware stamps, and ours) and the request log use it;
 * nothing else reads X-Forwarded-For.
 *
 * `hops` (TRUST_PROXY) is the number of proxies in front of the app that each append the
 * address they saw to X-Forwarded-For (nginx's `$proxy_add_x_forwarded_for`, Heroku-style
 * routers) or replace it (Caddy). Entries further left were written by whoever sent the
 * request and prove nothing, so the client is the entry `hops` places from the right:
 *
 *   hops = 0: the socket's address; X-Forwarded-For is ignored.
 *   hops = 1, "forged, 203.0.113.7"  → 203.0.113.7 (written by our proxy)
 *   hops = 2, "forged, 203.0.113.7, 10.0.0.2" → 203.0.113.7 (CDN, then nginx)
 *
 * Every X-Forwarded-For header is read, joined in order, split at commas and trimmed;
 * an empty entry counts as an entry. When there are fewer entries than hops (a request
 * that did not come through every proxy), or the chosen entry is not an IP address
 * (`unknown`, a host name, garbage), the answer is the socket's address: the nearest
 * proxy's, one shared bucket. Never a string a client chose, and a malformed entry
 * never earns a bucket of its own. An entry may carry a port (`203.0.113.7:4711`,
 * `[2001:db8::1]:443`): the port is dropped.
 *
 * Addresses come back in one canonical form: IPv4 dotted, IPv6 compressed in lower case,
 * IPv4-mapped IPv6 (`::ffff:203.0.113.7`, as a dual-stack socket reports IPv4 clients)
 * as IPv4. A zone index (`fe80::1%eth0`) is not an address a proxy writes: malformed.
 */
export const MAX_PROXY_HOPS = 10;

export interface ClientAddressInput {
  /** The X-Forwarded-For header(s), in the order received (one string when already joined). */
  forwardedFor: string | readonly string[] | null | undefined;
  /**
   * The address of the socket the request came in on; or a function that reads it, called
   * only when the answer needs it (not when X-Forwarded-For names the client).
   */
  socketAddress: string | null | undefined | (() => string | null | undefined);
  /** TRUST_PROXY: how many proxies in front of the app append to X-Forwarded-For. */
  hops: number;
}

/** The client's address in canonical form, or undefined when even the socket's is unknown. */
export function clientAddress({ forwardedFor, socketAddress, hops }: ClientAddressInput): string | undefined {
  const socket = () => {
    const raw = typeof socketAddress === "function" ? socketAddress() : socketAddress;
    return raw ? parseAddress(raw) : undefined;
  };
  if (hops <= 0) return socket();
  const joined = typeof forwardedFor === "string" ? forwardedFor : (forwardedFor ?? []).join(",");
  if (joined.trim() === "") return socket();
  const entries = joined.split(",");
  if (entries.length < hops) return socket();
  return parseAddress(entries[entries.length - hops] ?? "") ?? socket();
}

/** An IP address (optionally with a port) in canonical form; undefined for anything else. */
export function parseAddress(text: string): string | undefined {
  let value = text.trim();
  if (value.startsWith("[")) {
    const end = value.indexOf("]");
    const rest = value.slice(end + 1);
    if (end < 0 || (rest !== "" && !PORT.test(rest))) return undefined;
    value = value.slice(1, end);
  } else {
    const colon = value.indexOf(":");
    if (colon > 0 && colon === value.lastIndexOf(":") && PORT.test(value.slice(colon))) value = value.slice(0, colon);
  }
  // Canonical already: four octets without leading zeros are written back as they are.
  if (ipv4Octets(value)) return value;
  const groups = ipv6Groups(value);
  if (!groups) return undefined;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join(".");
  }
  return formatIPv6(groups);
}

/**
 * The rate-limit bucket of a canonical address: IPv4 as it is; IPv6 by its /64 (one
 * subscriber usually holds a whole /64), written as better-auth writes it (eight 4-digit
 * groups, the last four zero), so that its limits and ours count the same clients together.
 */
export function rateLimitKey(address: string): string {
  const groups = address.includes(":") ? ipv6Groups(address) : undefined;
  if (!groups) return address;
  return groups.map((g, i) => (i < 4 ? g.toString(16).padStart(4, "0") : "0000")).join(":");
}

const PORT = /^:\d{1,5}$/;
const OCTET = /^(0|[1-9]\d{0,2})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** Dotted-decimal IPv4, four octets, no leading zeros (`010.0.0.1` is ambiguous: refused). */
function ipv4Octets(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const octets: number[] = [];
  for (const part of parts) {
    const octet = OCTET.test(part) ? Number(part) : 256;
    if (octet > 255) return undefined;
    octets.push(octet);
  }
  return octets;
}

/** The eight 16-bit groups of an IPv6 address (RFC 4291 text forms, a dotted IPv4 tail included). */
function ipv6Groups(text: string): number[] | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (half: string): number[] | undefined => {
    if (half === "") return [];
    const out: number[] = [];
    const parts = half.split(":");
    for (const [i, part] of parts.entries()) {
      if (HEX_GROUP.test(part)) out.push(Number.parseInt(part, 16));
      else if (i === parts.length - 1 && part.includes(".")) {
        const v4 = ipv4Octets(part);
        if (!v4) return undefined;
        const [a = 0, b = 0, c = 0, d = 0] = v4;
        out.push((a << 8) | b, (c << 8) | d);
      } else return undefined;
    }
    return out;
  };
  const head = parse(halves[0] ?? "");
  if (!head) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  if ((halves[0] ?? "").includes(".")) return undefined; // a dotted tail only at the very end
  const tail = parse(halves[1] ?? "");
  if (!tail || head.length + tail.length > 7) return undefined;
  return [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** RFC 5952: lower-case hex without leading zeros, the longest run of two or more zero groups as `::`. */
function formatIPv6(groups: number[]): string {
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLength).join(":")}`;
}
