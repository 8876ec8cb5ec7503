/**
 * The built client files (dist/client: assets and prerendered pages), loaded into memory once
 * at start (the folder is small) and served with an ETag, gzip when asked, and a long cache
 * for Astro's hashed `/_astro/` assets.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { markSecured, securedHeaders } from "../api/lib/security";

export interface StaticFile {
  /** Blobs: every Response made from one shares its bytes (a Uint8Array would be copied per answer). */
  body: Blob;
  gzip?: Blob;
  type: string;
  etag: string;
  cacheControl: string;
  /** Its answers' final headers (security headers included), made on first use. */
  secured?: { security: Record<string, string>; plain: Headers; gzip?: Headers; notModified: Headers };
}

const COMPRESSIBLE = /^(text\/|application\/(javascript|json|xml|manifest\+json)|image\/svg\+xml)/;

/** Every built file, keyed by URL path (a folder's index.html also under the folder's path). */
export function loadStaticFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const full = join(folder, name);
      if (statSync(full).isDirectory()) {
        walk(full);
        continue;
      }
      const urlPath = `/${relative(dir, full).split(sep).join("/")}`;
      const file = Bun.file(full);
      const bytes = new Uint8Array(readFileSync(full));
      const type =
        file.type.startsWith("text/") && !file.type.includes("charset") ? `${file.type};charset=utf-8` : file.type;
      const entry: StaticFile = {
        body: new Blob([bytes]),
        type,
        etag: `"${Bun.hash(bytes).toString(36)}"`,
        cacheControl: urlPath.startsWith("/_astro/")
          ? "public, max-age=31536000, immutable"
          : "public, max-age=0, must-revalidate",
      };
      if (COMPRESSIBLE.test(type) && bytes.byteLength > 512) entry.gzip = new Blob([Bun.gzipSync(bytes, { level: 9 })]);
      files.set(urlPath, entry);
      if (urlPath.endsWith("/index.html")) files.set(urlPath.slice(0, -"index.html".length) || "/", entry);
    }
  };
  if (existsSync(dir)) walk(dir);
  return files;
}

const acceptsGzip = (request: Request) => /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");

/**
 * One loaded file as the answer to a GET or HEAD: 304 when the client has it, gzip when it
 * takes it. With `security` (the server's security headers), the answer carries its final
 * headers, made once per file.
 */
export function serveStatic(file: StaticFile, request: Request, security?: Record<string, string>): Response {
  if (security) {
    let secured = file.secured;
    if (secured?.security !== security) {
      const base = staticHeaders(file);
      secured = {
        security,
        plain: securedHeaders(base, security),
        gzip: file.gzip ? securedHeaders({ ...base, "Content-Encoding": "gzip" }, security) : undefined,
        notModified: securedHeaders(base, security),
      };
      file.secured = secured;
    }
    if (request.headers.get("if-none-match") === file.etag) {
      return markSecured(new Response(null, { status: 304, headers: secured.notModified }));
    }
    const gzip = secured.gzip && acceptsGzip(request);
    const body = request.method === "HEAD" ? null : gzip ? file.gzip : file.body;
    return markSecured(new Response(body, { headers: gzip ? secured.gzip : secured.plain }));
  }
  const headers = staticHeaders(file);
  if (request.headers.get("if-none-match") === file.etag) return new Response(null, { status: 304, headers });
  const gzip = file.gzip && acceptsGzip(request);
  if (gzip) headers["Content-Encoding"] = "gzip";
  const body = gzip ? file.gzip : file.body;
  return new Response(request.method === "HEAD" ? null : body, { headers });
}

function staticHeaders(file: StaticFile): Record<string, string> {
  return {
    "Content-Type": file.type,
    "Cache-Control": file.cacheControl,
    ETag: file.etag,
    Vary: "Accept-Encoding",
  };
}
