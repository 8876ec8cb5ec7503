/**
 * Whether this device has a network (issue 51): the browser's own flag and its `online` and
 * `offline` events. The dashboard's banner and the controls that need the network read it.
 */
import { atom, onMount } from "nanostores";
import { OFFLINE_MESSAGES } from "../lib/messages";

export const $online = atom(true);

onMount($online, () => {
  const update = () => $online.set(navigator.onLine);
  update();
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
