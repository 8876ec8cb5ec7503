/**
 * The ceiling: a bare Bun.serve answering every request with one profile page's bytes, as the
 * app rendered them. Started by bench/run.ts: `bun bench/ceiling.ts <port> <body-file> <content-type>`.
 */
export {};

const [port, bodyFile, contentType] = process.argv.slice(2);
const body = new Uint8Array(await Bun.file(bodyFile ?? "").arrayBuffer());
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(port),
  fetch: () => new Response(body, { headers: { "Content-Type": contentType ?? "text/html" } }),
});
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
