/*
 * StackTrack's service worker (issue 39), served at /sw.js by src/pages/sw.js.ts. Registered from the
 * dashboard and settings only. `push` always shows a notification; its `Mark all taken`
 * action ticks the slot's doses with one Take all request and the user's cookie, and on any failure
 * opens the dashboard's Today instead. A new deploy's worker takes over on the next load.
 * Offline (issue 40, docs/offline.md): the dashboard page, its built assets and its
 * GET /api/today answers, network first; nothing of any other page. Sign-out clears them.
 */
const TODAY = "/dashboard#today";
/** Starts with OFFLINE_CACHE_PREFIX (src/lib/offline-queue.ts), which the page clears too. */
const CACHE = "stacktrack-offline-v2";
const SHELL = "/dashboard";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) =>
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      await Promise.all(
        names.filter((n) => n.startsWith("stacktrack-offline") && n !== CACHE).map((n) => caches.delete(n)),
      );
      await self.clients.claim();
    })(),
  ),
);

/**
 * Issue 45: a device signed out elsewhere (its session ended from another device, its account
 * deleted) keeps nothing. When the server answers this user's request with 401, or a dashboard
 * navigation with a page that is not the dashboard (signed out: the landing page), every copy
 * this worker keeps is deleted. Answers `response` unchanged.
 */
async function forgetIfSignedOut(response, dashboardNavigation = false) {
  const signedOut =
    response.status === 401 ||
    (dashboardNavigation && response.ok && response.headers.get("X-Offline-Shell") !== "dashboard");
  if (signedOut) {
    const names = await caches.keys();
    await Promise.all(names.filter((n) => n.startsWith("stacktrack-offline")).map((n) => caches.delete(n)));
  }
  return response;
}

/** A page that may be the dashboard: /dashboard, or / (the dashboard when signed in). */
const dashboardPath = (path) => path === SHELL || path === "/";

function cacheable(response) {
  return response.ok && response.type === "basic" && !response.redirected;
}

/**
 * The dashboard page: the network's, kept when it says it is the dashboard (the header its
 * page sets: `/` answers the landing page to a signed-out visitor, never kept); without a
 * network the last one kept.
 */
async function shell(request) {
  try {
    const response = await forgetIfSignedOut(await fetch(request), true);
    if (cacheable(response) && response.headers.get("X-Offline-Shell") === "dashboard") {
      const cache = await caches.open(CACHE);
      await cache.put(SHELL, response.clone());
    }
    return response;
  } catch (error) {
    const cached = await caches.match(SHELL, { cacheName: CACHE, ignoreSearch: true, ignoreVary: true });
    if (cached) return keptShell(cached);
    throw error;
  }
}

/**
 * The kept dashboard as answered without a network: its mark of server-rendered Today rows
 * (RENDERED_PAGE_MARK in src/lib/today-source.ts) becomes the kept copy's, so that the card shows
 * this device's copy of the day instead of the rows as old as the page.
 */
async function keptShell(response) {
  const headers = new Headers(response.headers);
  headers.delete("Content-Length");
  const page = (await response.text()).replace("today-source:server", "today-source:worker");
  return new Response(page, { status: response.status, statusText: response.statusText, headers });
}

/**
 * A Today answer as kept: marked with the time it was kept (`X-Offline-Copy`, KEPT_COPY_HEADER in
 * src/lib/api.ts), so that the page knows an answer came from here, not from the server.
 */
function keptCopy(response) {
  const headers = new Headers(response.headers);
  headers.set("X-Offline-Copy", new Date().toISOString());
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** Kept Today answers: the dated ones of the latest 8 dates (the editable window), and the undated one. */
const TODAYS_KEPT = 8;

async function pruneTodays(cache) {
  const dated = (await cache.keys())
    .map((r) => ({ request: r, url: new URL(r.url) }))
    .filter(({ url }) => url.pathname === "/api/today" && url.searchParams.has("date"))
    .sort((a, b) => String(b.url.searchParams.get("date")).localeCompare(String(a.url.searchParams.get("date"))));
  await Promise.all(dated.slice(TODAYS_KEPT).map(({ request }) => cache.delete(request)));
}

/** GET /api/today: the network's answer, kept per URL (date); without a network the last one kept. */
async function today(request) {
  try {
    const response = await forgetIfSignedOut(await fetch(request));
    if (cacheable(response)) {
      const cache = await caches.open(CACHE);
      await cache.put(request, keptCopy(response.clone()));
      await pruneTodays(cache);
    }
    return response;
  } catch {
    const cached = await caches.match(request, { cacheName: CACHE, ignoreVary: true });
    return cached || Response.error();
  }
}

/** A built asset (hashed, never changes): the kept copy, else the network's, kept when the dashboard asked. */
async function asset(event) {
  const cached = await caches.match(event.request, { cacheName: CACHE, ignoreVary: true });
  if (cached) return cached;
  const response = await fetch(event.request);
  const client = event.clientId ? await self.clients.get(event.clientId) : null;
  if (client && dashboardPath(new URL(client.url).pathname) && cacheable(response)) {
    const cache = await caches.open(CACHE);
    await cache.put(event.request, response.clone());
  }
  return response;
}

/**
 * The dashboard's first load (before this worker controlled it, so nothing was kept): the page
 * names what it fetched; the worker keeps a fresh copy of the dashboard, of those build assets
 * and of its Today answers. Only a dashboard may ask, and only those paths are fetched.
 */
async function keepDashboard(urls) {
  const cache = await caches.open(CACHE);
  const page = await fetch(SHELL, { credentials: "same-origin" });
  if (cacheable(page) && page.headers.get("X-Offline-Shell") === "dashboard") await cache.put(SHELL, page);
  const wanted = urls
    .map((u) => new URL(String(u), self.location.origin))
    .filter((u) => u.origin === self.location.origin)
    .filter((u) => u.pathname.startsWith("/_astro/") || u.pathname === "/api/today");
  await Promise.all(
    wanted.map(async (u) => {
      if (u.pathname.startsWith("/_astro/") && (await cache.match(u.href, { ignoreVary: true }))) return;
      const response = await fetch(u.href, { credentials: "same-origin" });
      if (cacheable(response)) await cache.put(u.href, u.pathname === "/api/today" ? keptCopy(response) : response);
    }),
  );
}

self.addEventListener("message", (event) => {
  const data = event.data || {};
  const from = event.source && "url" in event.source ? new URL(event.source.url).pathname : "";
  if (data.type === "keep-dashboard" && Array.isArray(data.urls) && dashboardPath(from)) {
    event.waitUntil(keepDashboard(data.urls.slice(0, 200)).catch(() => undefined));
  }
});

self.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    if (dashboardPath(url.pathname)) event.respondWith(shell(request));
    return;
  }
  if (url.pathname === "/api/today") event.respondWith(today(request));
  else if (url.pathname.startsWith("/_astro/")) event.respondWith(asset(event));
});

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : "" };
  }
  const doses = Array.isArray(data.doses) ? data.doses : [];
  event.waitUntil(
    self.registration.showNotification(data.title || "StackTrack", {
      body: data.body || "",
      tag: data.tag,
      renotify: Boolean(data.tag),
      icon: "/icon-192.png",
      data: { url: data.url || TODAY, date: data.date, doses },
      actions: doses.length > 0 && data.date ? [{ action: "take", title: "Mark all taken" }] : [],
    }),
  );
});

async function openToday(url) {
  const target = new URL(url || TODAY, self.location.origin);
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  for (const client of windows) {
    if (new URL(client.url).pathname === target.pathname && "focus" in client) {
      if ("navigate" in client) await client.navigate(target.href).catch(() => undefined);
      return client.focus();
    }
  }
  return self.clients.openWindow(target.href);
}

// One request for the slot: Take all (PUT /api/intakes/{date}), all or nothing.
async function markAllTaken(data) {
  const answer = await fetch(`/api/intakes/${data.date}`, {
    method: "PUT",
    credentials: "include",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({
      status: "taken",
      doses: data.doses.map((dose) => ({ supplementId: dose.supplementId, time: dose.time })),
    }),
  });
  await forgetIfSignedOut(answer);
  if (!answer.ok) throw new Error(`Take all answered ${answer.status}`);
}

self.addEventListener("notificationclick", (event) => {
  const data = event.notification.data || {};
  event.notification.close();
  if (event.action === "take") {
    event.waitUntil(markAllTaken(data).catch(() => openToday(data.url)));
  } else {
    event.waitUntil(openToday(data.url));
  }
});
