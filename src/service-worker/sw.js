/*
 * StackTrack's service worker (issue 39), served at /sw.js by src/pages/sw.js.ts. Registered from the
 * dashboard and settings only. `push` always shows a notification; its `Mark all taken`
 * action ticks the slot's doses with one Take all request and the user's cookie, and on any failure
 * opens the dashboard's Today instead. A new deploy's worker takes over on the next load.
 * No offline caching here.
 */
const TODAY = "/dashboard#today";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

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
