// Serves a built workbench (dist/web) over node:http for `lockstep web` and the browser tests. GET and
// HEAD only; a directory serves its index.html; nothing outside the root is reachable, however the path
// is spelled (.., encoded slashes, NUL, symlinks pointing out); everything else is 404.
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve, sep } from 'node:path';
import { mimeTypeOf } from './mime-types.js';

export interface StaticServerOptions {
  readonly root: string;
  /** Default 127.0.0.1: the workbench is for the person at this machine. */
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Sent with every response (lockstep web: the workbench's CSP, workbench-csp.ts). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface StaticServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** The file a request path names inside root, or undefined when it would leave root or is malformed. */
export function resolveInside(root: string, urlPath: string): string | undefined {
  const pathname = urlPath.split(/[?#]/, 1)[0] ?? '';
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined; // malformed percent-encoding
  }
  if (!decoded.startsWith('/') || decoded.includes('\0') || decoded.includes('\\')) return undefined;
  if (decoded.split('/').some((part) => part === '..')) return undefined;
  const rootDir = resolve(root);
  const file = resolve(rootDir, `.${decoded}`);
  return file === rootDir || file.startsWith(rootDir + sep) ? file : undefined;
}

async function fileToServe(root: string, urlPath: string): Promise<string | undefined> {
  const candidate = resolveInside(root, urlPath);
  if (candidate === undefined) return undefined;
  try {
    const info = await stat(candidate);
    const file = info.isDirectory() ? join(candidate, 'index.html') : candidate;
    // A symlink inside the root may point outside it: compare real paths.
    const [realRoot, realFile] = await Promise.all([realpath(root), realpath(file)]);
    if (!realFile.startsWith(realRoot + sep)) return undefined;
    return (await stat(realFile)).isFile() ? realFile : undefined;
  } catch {
    return undefined;
  }
}

function notFound(response: ServerResponse, status = 404, headers: Readonly<Record<string, string>> = {}): void {
  response.writeHead(status, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
  response.end(status === 405 ? 'method not allowed: the workbench serves GET and HEAD only\n' : 'not found\n');
}

async function handle(root: string, headers: Readonly<Record<string, string>>, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    notFound(response, 405, headers);
    return;
  }
  const file = await fileToServe(root, request.url ?? '/');
  if (file === undefined) {
    notFound(response, 404, headers);
    return;
  }
  const size = (await stat(file)).size;
  // The build names its assets by content hash; the page itself must be fetched fresh after a rebuild.
  response.writeHead(200, { ...headers, 'content-type': mimeTypeOf(file), 'content-length': size, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  createReadStream(file).on('error', () => response.destroy()).pipe(response);
}

export async function startStaticServer(options: StaticServerOptions): Promise<StaticServer> {
  const host = options.host ?? '127.0.0.1';
  const server: Server = createServer((request, response) => {
    handle(options.root, options.headers ?? {}, request, response).catch(() => {
      if (!response.headersSent) notFound(response, 404, options.headers);
      else response.destroy();
    });
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', fail);
      done();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/`,
    port,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
