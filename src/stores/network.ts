/**
 * Whether this device has a network (issue 51): the browser's own flag and its `online` and
 * `offline` events, and Today's read (src/islands/tracking/TodayCard.tsx). Not the flag at load:
 * a browser may say offline while the server it talks to is reachable (a loopback-only machine).
 * The dashboard's banner and the controls that need the network read it.
 */
import { atom, onMount } from "nanostores";
import { OFFLINE_MESSAGES } from "../lib/messages";

export const $online = atom(true);

onMount($online, () => {
  // Not the browser's flag at load (it may say offline beside a reachable server): the events,
  // and Today's read (a kept copy shown: offline) decide.
  const update = () => $online.set(navigator.onLine);
  window.addEventListener("online", update);
  window.addEventListener("offline", update);
  return () => {
    window.removeEventListener("online", update);
    window.removeEventListener("offline", update);
  };
});

/**
 * A control that needs the network, while there is none: disabled, `Needs a connection` as
 * its tooltip and accessible description (never a dead click).
 */
export const needsConnection = (online: boolean) =>
  online ? {} : { disabled: true, title: OFFLINE_MESSAGES.needsConnection };
