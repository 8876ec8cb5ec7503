/**
 * The ceiling: the least a server on this machine can do per request. A bare
 * Bun.serve answering, to every request, the bytes of one profile page as the app
 * rendered it, with the same Content-Type. Started by bench/run.ts as its own process:
 *
 *   bun bench/ceiling.ts <port> <body-file> <content-type>
 */
export {};

const [portArg, bodyFile, contentType] = process.argv.slice(2);
if (!portArg || !bodyFile || !contentType) {
  console.error("usage: bun bench/ceiling.ts <port> <body-file> <content-type>");
  process.exit(2);
}
const body = new Uint8Array(await Bun.file(bodyFile).arrayBuffer());

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(portArg),
  fetch: () => new Response(body, { headers: { "Content-Type": contentType } }),
});
console.log(`ceiling listening on ${server.url} (${body.byteLength} bytes, ${contentType})`);

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    server.stop(true);
    process.exit(0);
  });
}
