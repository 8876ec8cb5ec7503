/**
 * Where a push endpoint may point (issue 45): only at the hosts of the real push services, over
 * https on port 443, so that a subscription cannot make the server POST to loopback, link-local
 * or private addresses (blind SSRF). The list is PUSH_HOSTS (api/lib/config.ts); an entry is a host
 * name (`fcm.googleapis.com`), or `*.` and a name (`*.notify.windows.com`: exactly one more
 * label), optionally with `:port` (tests: a local push service). No entry: port 443 only.
 */

/** The push services of Chrome/Edge/Android (FCM), Firefox, Safari and Windows (WNS). */
export const DEFAULT_PUSH_HOSTS = [
  "fcm.googleapis.com",
  "updates.push.services.mozilla.com",
  "web.push.apple.com",
  "*.notify.windows.com",
] as const;

export const PUSH_HOST_MESSAGE = "Push endpoints must be https URLs of a known push service (port 443)";

/** An entry of the list: a lower-case DNS name, an optional `*.` in front, an optional port. */
const ENTRY =
  /^(\*\.)?((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?::(\d{1,5}))?$/;
/** One DNS label: what `*` stands for. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The entries of a comma-separated list, trimmed and lower-cased; a malformed one is an error. */
export function parsePushHosts(list: string): string[] {
  const entries = list
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  for (const entry of entries) {
    const port = ENTRY.exec(entry)?.[3];
    if (!ENTRY.test(entry) || (port !== undefined && (Number(port) < 1 || Number(port) > 65535))) {
      throw new Error(`"${entry}" is not a host name, *.name or host:port`);
    }
  }
  return entries;
}

/** Whether one parsed `url`'s host and port are those of `entry`. */
function matches(entry: string, hostname: string, port: string): boolean {
  const [, wildcard, name, entryPort] = ENTRY.exec(entry) ?? [];
  // The URL parser drops https' default port: `host:443` is `host`.
  if (!name || port !== (entryPort === undefined || entryPort === "443" ? "" : entryPort)) return false;
  if (!wildcard) return hostname === name;
  const suffix = `.${name}`;
  return hostname.endsWith(suffix) && LABEL.test(hostname.slice(0, -suffix.length));
}

/**
 * Whether `endpoint` is an https URL, with no user name or password, on a host (and port) of
 * `hosts`. The URL parser has already lower-cased the host, turned IDN look-alikes into `xn--`,
 * written `127.1` as `127.0.0.1` and dropped `:443`; a trailing dot is another name (refused).
 */
export function pushEndpointAllowed(endpoint: string, hosts: readonly string[]): boolean {
  if (!URL.canParse(endpoint)) return false;
  const url = new URL(endpoint);
  if (url.protocol !== "https:" || url.username !== "" || url.password !== "") return false;
  return hosts.some((entry) => matches(entry, url.hostname, url.port));
}
