import { mkdtemp, utimes, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BadInput } from '../cli-errors.js';
import type { CliIo } from '../cli-io.js';
import { runCli } from '../testing/run-cli.js';
import { startWorkbench } from './web.js';

function capture(): CliIo & { out_: string[]; err_: string[] } {
  const out_: string[] = [];
  const err_: string[] = [];
  return { out_, err_, out: (t) => void out_.push(t), err: (t) => void err_.push(t) };
}

/** A build directory whose index.html is newer than any source (dated tomorrow), so nothing is rebuilt. */
async function freshBuild(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lockstep-web-'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>built</title>');
  const tomorrow = new Date(Date.now() + 86_400_000);
  await utimes(join(dir, 'index.html'), tomorrow, tomorrow);
  return dir;
}

describe('lockstep web', () => {
  it('has --help naming its options', async () => {
    const { code, out } = await runCli('web', '--help');
    expect(code).toBe(0);
    const help = out.join('\n');
    for (const option of ['--port', '--host', '--rebuild', '--json', '--allow-origin']) expect(help).toContain(option);
  });

  it('serves an up-to-date build without rebuilding, prints {url} with --json, and stops when closed', async () => {
    const io = capture();
    const server = await startWorkbench({ port: '0', host: '127.0.0.1', json: true, outDir: await freshBuild() }, io);
    expect(io.err_.join('\n')).not.toContain('building');
    const { url } = JSON.parse(io.out_.at(-1) ?? '{}') as { url: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await fetch(url);
    expect([page.status, await page.text()]).toEqual([200, '<!doctype html><title>built</title>']);
    await server.close();
    await expect(fetch(url)).rejects.toThrow();
  });

  it('refuses a bad --port through the boundary: exit 2 and one line naming the command, the flag and the rule', async () => {
    expect(await runCli('web', '--port', 'abc')).toMatchObject({ code: 2, err: ['lockstep web: --port "abc" must be a whole number from 0 to 65535 (0 picks a free port)'] });
  });

  it.each([['abc'], ['70000'], ['-1'], ['']])('refuses --port %j, saying what a port is', async (port) => {
    const io = capture();
    await expect(startWorkbench({ port, host: '127.0.0.1', outDir: await freshBuild() }, io)).rejects.toThrow(new BadInput(`--port ${JSON.stringify(port)} must be a whole number from 0 to 65535 (0 picks a free port)`));
  });

  it('refuses a port in use with exit 2, suggesting --port 0', async () => {
    const blocker = createServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done));
    const port = (blocker.address() as { port: number }).port;
    const io = capture();
    try {
      await expect(startWorkbench({ port: String(port), host: '127.0.0.1', outDir: await freshBuild() }, io)).rejects.toThrow(new RegExp(`^--port ${port} is in use .* --port 0`));
    } finally {
      blocker.close();
    }
  });

  it("sends the workbench's CSP, frame-ancestors 'none' included, on every response; --allow-origin adds to connect-src (issue 18)", async () => {
    const io = capture();
    const server = await startWorkbench({ port: '0', host: '127.0.0.1', outDir: await freshBuild(), allowOrigin: ['https://artifacts.example.org/'] }, io);
    try {
      for (const path of ['', 'no-such-file.js']) {
        const response = await fetch(new URL(path, server.url));
        const csp = response.headers.get('content-security-policy') ?? '';
        expect(csp).toContain("frame-ancestors 'none'");
        expect(csp).toContain("connect-src 'self' data: https://artifacts.example.org;");
        expect(csp).not.toContain('unsafe-inline');
        expect(response.headers.get('x-frame-options')).toBe('DENY');
      }
    } finally {
      await server.close();
    }
  });

  it('refuses an --allow-origin that is not an origin with exit 2, before building or listening', async () => {
    const io = capture();
    await expect(startWorkbench({ port: '0', host: '127.0.0.1', outDir: await freshBuild(), allowOrigin: ['https://artifacts.example.org/runs/'] }, io)).rejects.toThrow(/^--allow-origin "https:\/\/artifacts\.example\.org\/runs\/" must be an http\(s\) origin/);
    expect(io.err_.join('\n')).not.toContain('building');
  });
});
