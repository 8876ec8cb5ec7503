/**
 * The client's address, decided in this one place: every rate limit and the request log use
 * it; nothing else reads X-Forwarded-For. `hops` (TRUST_PROXY) proxies append (or replace) an
 * entry each, so the client is the entry `hops` places from the right:
 *
 *   hops = 0: the socket's address;  hops = 1, "forged, 203.0.113.7" → 203.0.113.7
 *
 * Too few entries, or an entry that is not an IP address, gives the socket's address (the
 * nearest proxy's). Addresses come back canonical (IPv4-mapped IPv6 as IPv4), ports dropped.
 * The whole rule: docs/configuration.md.
 */
export const MAX_PROXY_HOPS = 10;

export interface ClientAddressInput {
  /** The X-Forwarded-For header(s), in the order received (one string when already joined). */
  forwardedFor: string | readonly string[] | null | undefined;
  /**
   * The address of the socket the request came in on, or a function that reads it: called
   * only when the answer needs it (asking Bun for it costs more than the whole decision).
   */
  socketAddress: string | null | undefined | (() => string | null | undefined);
  /** TRUST_PROXY: how many proxies in front of the app append to X-Forwarded-For. */
  hops: number;
}

/** The client's address in canonical form, or undefined when even the socket's is unknown. */
export function clientAddress({ forwardedFor, socketAddress, hops }: ClientAddressInput): string | undefined {
  const socket = () => {
    const address = typeof socketAddress === "function" ? socketAddress() : socketAddress;
    return address ? parseAddress(address) : undefined;
  };
  if (hops <= 0) return socket();
  const joined = typeof forwardedFor === "string" ? forwardedFor : (forwardedFor ?? []).join(",");
  if (joined.trim() === "") return socket();
  // The entry `hops` places from the right, found from the end without splitting the list.
  let end = joined.length;
  for (let hop = 1; hop < hops; hop++) {
    const comma = end === 0 ? -1 : joined.lastIndexOf(",", end - 1);
    if (comma < 0) return socket(); // fewer entries than hops
    end = comma;
  }
  const start = end === 0 ? 0 : joined.lastIndexOf(",", end - 1) + 1;
  return parseAddress(joined.slice(start, end)) ?? socket();
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
  if (ipv4Octets(value)) return value; // dotted, no leading zeros: already canonical
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
const DOTTED = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** Dotted-decimal IPv4, four octets, no leading zeros (`010.0.0.1` is ambiguous: refused). */
function ipv4Octets(text: string): [number, number, number, number] | undefined {
  const match = DOTTED.exec(text);
  if (!match) return undefined;
  const octets: [number, number, number, number] = [
    Number(match[1]),
    Number(match[2]),
    Number(match[3]),
    Number(match[4]),
  ];
  return octets[0] <= 255 && octets[1] <= 255 && octets[2] <= 255 && octets[3] <= 255 ? octets : undefined;
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
        const [a, b, c, d] = v4;
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
