// Certificates that rotate under a running arbiter (ADR-19): SPIRE's SVIDs live about an hour, and the
// spiffe-helper sidecar (deploy/arbiter-deployment.yaml) writes each new one over the files `serve` was
// started with. `serve` reads them again when they change: new connections get the new certificate and
// trust the new bundle; a set that does not load (a key written before its certificate, a half-written
// file) is refused and the last good set keeps serving, as with classes and grants (ADR-24). The files
// are polled by size and modification time: the helper replaces them by rename, which a watch on the old
// file would not see.
import { stat, readFile } from 'node:fs/promises';
import type { ServerTls } from './server.js';

export interface TlsFiles {
  readonly cert: string;
  readonly key: string;
  readonly clientCa: string;
}

export type TlsReload = { readonly adopted: true } | { readonly adopted: false; readonly problem: string };

export interface TlsWatch {
  /** Reads the files now when they changed since the last look; what happened, or undefined for no change. */
  check(): Promise<TlsReload | undefined>;
  stop(): void;
}

/** How often the files are looked at: well inside an SVID's life, cheap (three stat calls). */
export const TLS_POLL_MS = 10_000;

export function watchServerTls(files: TlsFiles, apply: (tls: ServerTls) => void, report: (outcome: TlsReload) => void, pollMs = TLS_POLL_MS): TlsWatch {
  const paths = [files.cert, files.key, files.clientCa];
  let seen: string | undefined;
  let running: Promise<TlsReload | undefined> = Promise.resolve(undefined);
  const look = async (): Promise<TlsReload | undefined> => {
    const now = await fingerprint(paths);
    if (seen === undefined) seen = now; // the first look: what serve started with
    if (now === seen) return undefined;
    seen = now;
    let outcome: TlsReload;
    try {
      const [cert, key, clientCa] = await Promise.all(paths.map((path) => readFile(path)));
      apply({ cert: cert as Buffer, key: key as Buffer, clientCa: clientCa as Buffer });
      outcome = { adopted: true };
    } catch (error) {
      outcome = { adopted: false, problem: error instanceof Error ? error.message : String(error) };
    }
    report(outcome);
    return outcome;
  };
  const check = (): Promise<TlsReload | undefined> => (running = running.then(look, look));
  void check();
  const timer = setInterval(() => void check(), pollMs);
  timer.unref();
  return { check, stop: () => clearInterval(timer) };
}

async function fingerprint(paths: readonly string[]): Promise<string> {
  const stats = await Promise.all(paths.map((path) => stat(path).then((s) => `${s.size}:${s.mtimeMs}:${s.ino}`, () => 'missing')));
  return stats.join('|');
}
