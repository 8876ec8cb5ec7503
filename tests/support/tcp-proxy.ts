/**
 * A TCP proxy that a test can cut and restore, to take a database "down" under a
 * running app and bring it back without restarting anything.
 *
 *   const proxy = await startTcpProxy({ host: "127.0.0.1", port: 54329 });
 *   proxy.cut();      // closes every connection, refuses new ones
 *   proxy.restore();  // forwards again
 *   proxy.hang();     // open connections pass nothing more (and stay open), new ones refused
 */
import type { Socket, TCPSocketListener } from "bun";

export interface TcpProxy {
  host: string;
  port: number;
  /** Closes every proxied connection and closes new ones at once. */
  cut(): void;
  /**
   * Every open connection stops passing bytes, either way, and stays open (a half-open
   * connection: nothing tells the client); new ones are closed at once, until `restore`.
   */
  hang(): void;
  restore(): void;
  /** Connections currently open through the proxy. */
  readonly connections: number;
  stop(): void;
}

interface Pair {
  client: Socket<Side>;
  upstream?: Socket<Side>;
  /** What the client sent before the upstream connection was open. */
  early: Uint8Array[];
  closed: boolean;
  /** Bytes are dropped, either way (`hang`). */
  hung: boolean;
}

interface Side {
  pair: Pair;
  /** Bytes the kernel did not take yet, written on `drain`. */
  pending: Uint8Array[];
}

function send(socket: Socket<Side>, data: Uint8Array) {
  const { pending } = socket.data;
  // Queued bytes are copied: the runtime may reuse the buffer it handed to `data`.
  if (pending.length > 0) {
    pending.push(new Uint8Array(data));
    return;
  }
  const written = socket.write(data);
  if (written < data.byteLength) pending.push(new Uint8Array(data.subarray(Math.max(written, 0))));
}

function flush(socket: Socket<Side>) {
  const { pending } = socket.data;
  while (pending.length > 0) {
    const chunk = pending[0] as Uint8Array;
    const written = socket.write(chunk);
    if (written < chunk.byteLength) {
      pending[0] = chunk.subarray(Math.max(written, 0));
      return;
    }
    pending.shift();
  }
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let down = false;

  const closePair = (pair: Pair) => {
    if (pair.closed) return;
    pair.closed = true;
    pairs.delete(pair);
    pair.client.end();
    pair.upstream?.end();
  };

  const listener: TCPSocketListener<Side> = Bun.listen<Side>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        const pair: Pair = { client, early: [], closed: false, hung: false };
        client.data = { pair, pending: [] };
        if (down) {
          pair.closed = true;
          client.end();
          return;
        }
        pairs.add(pair);
        Bun.connect<Side>({
          hostname: target.host,
          port: target.port,
          data: { pair, pending: [] },
          socket: {
            open(upstream) {
              if (pair.closed) {
                upstream.end();
                return;
              }
              pair.upstream = upstream;
              for (const chunk of pair.early.splice(0)) send(upstream, chunk);
            },
            data(_upstream, data) {
              if (!pair.closed && !pair.hung) send(client, data);
            },
            drain: flush,
            close: () => closePair(pair),
            error: () => closePair(pair),
            connectError: () => closePair(pair),
          },
        }).catch(() => closePair(pair));
      },
      data(client, data) {
        const { pair } = client.data;
        if (pair.closed || pair.hung) return;
        if (pair.upstream) send(pair.upstream, data);
        else pair.early.push(new Uint8Array(data));
      },
      drain: flush,
      close: (client) => closePair(client.data.pair),
      error: (client) => closePair(client.data.pair),
    },
  });

  return {
    host: "127.0.0.1",
    port: listener.port,
    cut() {
      down = true;
      for (const pair of [...pairs]) closePair(pair);
    },
    hang() {
      down = true;
      for (const pair of pairs) pair.hung = true;
    },
    restore() {
      down = false;
    },
    get connections() {
      return pairs.size;
    },
    stop() {
      down = true;
      for (const pair of [...pairs]) closePair(pair);
      listener.stop(true);
    },
  };
}
