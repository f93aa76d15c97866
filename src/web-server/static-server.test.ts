import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveInside, type StaticServer, startStaticServer } from './static-server.js';

// node's http.request sends the path as written, so the traversal attempts reach the server unnormalised
// (fetch and browsers would resolve "/../" before sending).
function get(server: StaticServer, path: string, method = 'GET'): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
    });
    req.on('error', fail);
    req.end();
  });
}

let server: StaticServer;
let base: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'lockstep-static-'));
  const root = join(base, 'web');
  await mkdir(join(root, 'assets'), { recursive: true });
  await writeFile(join(base, 'secret.txt'), 'outside the root');
  await writeFile(join(root, 'index.html'), '<!doctype html><title>workbench</title>');
  for (const name of ['main.js', 'worker.mjs', 'sim.wasm', 'run.json', 'icon.svg', 'blob.bin']) await writeFile(join(root, 'assets', name), name);
  await symlink(join(base, 'secret.txt'), join(root, 'assets', 'link.txt'));
  server = await startStaticServer({ root, port: 0 });
});

afterAll(async () => {
  await server.close();
});

describe('the static server', () => {
  it('binds 127.0.0.1 on a port it picked, and serves index.html for the root, query and all', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(server.port).toBeGreaterThan(0);
    const page = await get(server, '/?run=./run.json');
    expect([page.status, page.type]).toEqual([200, 'text/html; charset=utf-8']);
    expect(page.body).toContain('<title>workbench</title>');
  });

  it.each([
    ['/assets/main.js', 'text/javascript; charset=utf-8'],
    ['/assets/worker.mjs', 'text/javascript; charset=utf-8'],
    ['/assets/sim.wasm', 'application/wasm'],
    ['/assets/run.json', 'application/json; charset=utf-8'],
    ['/assets/icon.svg', 'image/svg+xml'],
    ['/assets/blob.bin', 'application/octet-stream'],
  ])('serves %s as %s', async (path, type) => {
    const answer = await get(server, path);
    expect([answer.status, answer.type, answer.body]).toEqual([200, type, path.split('/').at(-1)]);
  });

  it.each(['/../secret.txt', '/assets/../../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/..%5csecret.txt', '/assets/link.txt', '/%00', '/%E0%A4%A'])('refuses %s with 404 (nothing outside the root)', async (path) => {
    const answer = await get(server, path);
    expect(answer.status).toBe(404);
    expect(answer.body).not.toContain('outside the root');
  });

  it('answers 404 for a missing file, 405 for a write, and HEAD without a body', async () => {
    expect((await get(server, '/no-such.js')).status).toBe(404);
    expect((await get(server, '/index.html', 'POST')).status).toBe(405);
    const head = await get(server, '/assets/main.js', 'HEAD');
    expect([head.status, head.body]).toEqual([200, '']);
  });
});

describe('resolveInside', () => {
  it('keeps paths inside the root and refuses the rest', () => {
    expect(resolveInside('/srv/web', '/assets/a.js?x=1')).toBe('/srv/web/assets/a.js');
    expect(resolveInside('/srv/web', '/')).toBe('/srv/web');
    expect(resolveInside('/srv/web', '/a/../../web2/x')).toBeUndefined();
    expect(resolveInside('/srv/web', 'relative')).toBeUndefined();
  });
});
