/**
 * An SMTP server for tests on 127.0.0.1 (plain SMTP, no TLS, no auth): a bounce-free sink that
 * accepts every message and records its recipients, subject and text; or, in a `silent` mode,
 * one that goes quiet at a chosen step (the issue-45 deadline tests).
 *
 *   const sink = await startSmtpSink();
 *   startApi({ SMTP_URL: sink.url });        // smtp://127.0.0.1:<port>
 *   sink.received                            // [{ to: ["a@x"], subject, text }]
 *   const quiet = await startSmtpSink({ silent: "greeting" });  // accepts, never says 220
 */
import net from "node:net";

export interface SunkMail {
  from: string;
  to: string[];
  subject: string;
  /** The body after the headers, quoted-printable soft breaks undone. */
  text: string;
}

/** Where a silent server stops answering: before its greeting, after EHLO, or after the message. */
export type Silence = "greeting" | "ehlo" | "data";

export interface SmtpSink {
  url: string;
  received: SunkMail[];
  /** Connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

function parse(from: string, to: string[], data: string): SunkMail {
  const [head = "", ...rest] = data.split("\r\n\r\n");
  const unfolded = head.replace(/\r\n[ \t]+/g, " ");
  const subject = /^subject: (.*)$/im.exec(unfolded)?.[1] ?? "";
  const text = rest
    .join("\r\n\r\n")
    .replace(/=\r\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/\r\n/g, "\n");
  return { from, to, subject, text };
}

export async function startSmtpSink(options: { silent?: Silence } = {}): Promise<SmtpSink> {
  const received: SunkMail[] = [];
  const sockets = new Set<net.Socket>();
  const sink: SmtpSink = { url: "", received, connections: 0, close: async () => {} };
  const server = net.createServer((socket) => {
    sink.connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    if (options.silent === "greeting") return;
    const say = (line: string) => socket.write(`${line}\r\n`);
    let buffer = "";
    let inData = false;
    let data = "";
    let from = "";
    let to: string[] = [];
    say("220 sink.test ESMTP");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("latin1");
      for (;;) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end === -1) return;
          data += buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          if (options.silent === "data") return;
          received.push(parse(from, to, data.replace(/^\.\./gm, ".")));
          say("250 queued");
          continue;
        }
        const newline = buffer.indexOf("\r\n");
        if (newline === -1) return;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "EHLO" || verb === "HELO") {
          if (options.silent === "ehlo") return;
          say("250-sink.test");
          say("250 8BITMIME");
        } else if (verb === "MAIL") {
          from = /<([^>]*)>/.exec(line)?.[1] ?? "";
          to = [];
          say("250 ok");
        } else if (verb === "RCPT") {
          to.push(/<([^>]*)>/.exec(line)?.[1] ?? "");
          say("250 ok");
        } else if (verb === "DATA") {
          inData = true;
          data = "";
          say("354 go ahead");
        } else if (verb === "QUIT") {
          say("221 bye");
          socket.end();
          return;
        } else if (verb === "RSET" || verb === "NOOP") {
          say("250 ok");
        } else {
          say("502 not implemented");
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  sink.url = `smtp://127.0.0.1:${port}`;
  sink.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return sink;
}
