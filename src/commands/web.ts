// `lockstep web`: serves the web workbench (issue 7) on this machine. Builds dist/web with vite's API
// first when it is missing or older than its sources (or with --rebuild), then serves it over node:http
// until Ctrl-C. Binds 127.0.0.1 unless told otherwise: the simulator runs in the visitor's browser, but
// the page is a workbench for the person at this machine, not a service. Every response carries the
// workbench's Content-Security-Policy (src/web-server/workbench-csp.ts).
import { formatNumber, formatSeconds } from '../../core/numbers.js';
import { relative } from 'node:path';
import type { Command } from 'commander';
import { buildWorkbench, DEFAULT_OUT_DIR, REPO_DIR, staleReason } from '../web-server/build-workbench.js';
import { startStaticServer, type StaticServer } from '../web-server/static-server.js';
import { parseAllowedOrigin, workbenchHeaders } from '../web-server/workbench-csp.js';
import { BadInput, Refusal } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { oneLine } from '../terminal-text.js';

export const DEFAULT_WEB_PORT = 4178;

export interface WebOptions {
  port: string;
  host: string;
  rebuild?: boolean;
  json?: boolean;
  /** Origins besides the workbench's own that a ?run= link may fetch from, once the reader agrees (the CSP's connect-src). */
  allowOrigin?: string[];
  /** Where the build lives; tests use a temporary directory. */
  outDir?: string;
}

export function registerWebCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('web')
    .description('Serve the web workbench (scenario runner, run timeline, TTL sizing, quorum pricing; the simulator runs in your browser). Builds dist/web first when it is missing or older than its sources. Ctrl-C stops it. Exit 2 on bad input or a port in use; 70 when the build fails.')
    .option('--port <P>', 'port to listen on (0 picks a free one)', String(DEFAULT_WEB_PORT))
    .option('--host <H>', 'address to bind (0.0.0.0 shares the workbench with your network)', '127.0.0.1')
    .option('--rebuild', 'build dist/web even when it looks up to date')
    .option('--json', 'print {"url": ...} as JSON once serving')
    .option('--allow-origin <origin>', "an origin (https://host[:port]) a ?run= link may fetch an artifact from, after the reader agrees on the page; repeatable. Default: the workbench's own origin only (its Content-Security-Policy's connect-src)", (value: string, previous: string[]) => [...previous, value], [] as string[])
    .action(async (options: WebOptions) => {
      const started = await startWorkbench(options, io);
      await untilInterrupted();
      await started.close();
      io.err('lockstep web: stopped');
      setExitCode(ExitCode.ok);
    });
}

/** Resolves at the first Ctrl-C (SIGINT) or SIGTERM, and stops listening for them. */
function untilInterrupted(): Promise<void> {
  return new Promise((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** Builds if needed and starts serving; throws the boundary's BadInput or Refusal (src/cli.ts) when it cannot. */
export async function startWorkbench(options: WebOptions, io: CliIo): Promise<StaticServer> {
  const port = Number(options.port);
  if (!(Number.isInteger(port) && port >= 0 && port <= 65_535) || options.port.trim() === '') {
    throw new BadInput(`--port ${JSON.stringify(options.port)} must be a whole number from 0 to 65535 (0 picks a free port)`);
  }
  const allowed: string[] = [];
  for (const text of options.allowOrigin ?? []) {
    const parsed = parseAllowedOrigin(text);
    if ('problem' in parsed) throw new BadInput(parsed.problem);
    allowed.push(parsed.origin);
  }
  const outDir = options.outDir ?? DEFAULT_OUT_DIR;
  const shown = relative(REPO_DIR, outDir).startsWith('..') ? outDir : relative(REPO_DIR, outDir);
  const reason = options.rebuild === true ? '--rebuild' : await staleReason(outDir);
  if (reason !== undefined) {
    io.err(`lockstep web: building the workbench into ${shown} (${reason})...`);
    const startedMs = performance.now();
    try {
      const built = await buildWorkbench(outDir);
      io.err(`lockstep web: built ${built.files} files, ${formatNumber(built.bytes / 1024, 0)} KiB, in ${formatSeconds(performance.now() - startedMs, 1)}`);
    } catch (error) {
      // Not a check that failed (exit 1): an unexpected error, named with the operation and its input (src/cli.ts).
      throw new Refusal(`cannot build the workbench into ${shown}: ${oneLine((error as Error).message)}; fix the error above, then run lockstep web --rebuild (exit ${ExitCode.internal})`, ExitCode.internal);
    }
  }
  let server: StaticServer;
  try {
    // Served with a CSP and frame-ancestors 'none' (issue 18, workbench-csp.ts).
    server = await startStaticServer({ root: outDir, host: options.host, port, headers: workbenchHeaders(allowed) });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new BadInput(`--port ${port} is in use on ${options.host}; choose another port, or --port 0 to pick a free one`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new BadInput(`--host ${JSON.stringify(options.host)} is not an address of this machine; use 127.0.0.1 (default) or 0.0.0.0`);
    throw new BadInput(`cannot listen on ${options.host}:${port}: ${(error as Error).message}`);
  }
  if (options.json === true) io.out(JSON.stringify({ url: server.url }));
  else io.out(`lockstep web: the workbench is at ${server.url} (Ctrl-C stops it)`);
  return server;
}
