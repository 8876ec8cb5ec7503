/**
 * A device name for a session from its User-Agent: 'Firefox on Windows'. Only the browser
 * and the operating system, from their usual tokens (order matters: Edge and Opera say
 * Chrome too, Chrome says Safari too, iPadOS may say Macintosh). Unknown parts are
 * 'Unknown browser' / 'unknown system'.
 */
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(e|A|iOS)?\//, "Edge"],
  [/\b(OPR|Opera)\//, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\b(Firefox|FxiOS)\//, "Firefox"],
  [/\b(Chrome|CriOS|Chromium)\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
  [/\bcurl\//, "curl"],
];

const SYSTEMS: [RegExp, string][] = [
  [/\biPad\b/, "iPadOS"],
  [/\b(iPhone|iPod)\b/, "iOS"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

export interface Device {
  browser: string | null;
  os: string | null;
}

export function parseUserAgent(userAgent: string | null | undefined): Device {
  const ua = (userAgent ?? "").slice(0, 1000);
  const browser = BROWSERS.find(([pattern]) => pattern.test(ua))?.[1] ?? null;
  const os = SYSTEMS.find(([pattern]) => pattern.test(ua))?.[1] ?? null;
  return { browser, os };
}

export function deviceName(userAgent: string | null | undefined): string {
  const { browser, os } = parseUserAgent(userAgent);
  if (!browser && !os) return "Unknown device";
  return `${browser ?? "Unknown browser"} on ${os ?? "unknown system"}`;
}
