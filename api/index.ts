/** The Hono app for this process, built once on the shared context. */
import { type ApiApp, createApp } from "./app";
import { getContext } from "./context";

const KEY = Symbol.for("stacktrack.api");
type Holder = { [KEY]?: Promise<ApiApp> };

export function getApi(): Promise<ApiApp> {
  const holder = globalThis as Holder;
  holder[KEY] ??= getContext().then(createApp);
  return holder[KEY];
}
