/**
 * Tracking's shared state between the dashboard's islands (issue 19): a counter bumped after
 * every logged change, so the History card reloads when Today changes.
 */
import { atom } from "nanostores";

export const $trackingChanges = atom(0);
export const trackingChanged = () => $trackingChanges.set($trackingChanges.get() + 1);
