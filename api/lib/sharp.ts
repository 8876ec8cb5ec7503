/**
 * sharp (libvips), loaded on its first use (avatars uploaded, social cards drawn), with
 * libvips's operation cache off. That cache keeps the results of the last 100 operations (up
 * to 50 MB) in case the same operation on the same input comes again; here every upload and
 * every card is new input, so it only held memory: 15 MB of RSS after 100 cards (issue 17).
 */
import type SharpModule from "sharp";

let loading: Promise<typeof SharpModule> | undefined;

export function loadSharp(): Promise<typeof SharpModule> {
  loading ??= import("sharp").then(({ default: sharp }) => {
    sharp.cache(false);
    return sharp;
  });
  return loading;
}
