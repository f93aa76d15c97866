// What the RPC-stack bench (rpc-stacks-run.ts) and its two processes (rpc-stacks-child.ts) say to each
// other over IPC, and the certificates they share through a directory (made by the bench, read by both).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClosedLoopResult } from './closed-loop.js';
import type { CpuPerOperation } from './cpu-meter.js';
import type { ServerKey, TlsMaterial } from './rpc-stacks-servers.js';

/** File names in the certificate directory (dev-certs.ts names a certificate `<name>.crt`, its key `<name>.key`). */
export const CERT_NAMES = { server: 'arbiter', client: 'rpc-client' } as const;

export async function readTls(dir: string): Promise<TlsMaterial> {
  const [ca, serverCert, serverKey, clientCert, clientKey] = await Promise.all(
    ['ca.crt', `${CERT_NAMES.server}.crt`, `${CERT_NAMES.server}.key`, `${CERT_NAMES.client}.crt`, `${CERT_NAMES.client}.key`].map((name) => readFile(join(dir, name))),
  );
  return { ca, serverCert, serverKey, clientCert, clientKey } as TlsMaterial;
}

export interface SliceOrder {
  readonly stack: string;
  readonly secure: boolean;
  readonly concurrency: number;
}

/** One stack, one transport, one concurrency: what a tally is kept for across rounds. */
export function sliceKey(order: SliceOrder): string {
  return `${order.stack}/${order.secure ? 'tls' : 'plain'}/c${order.concurrency}`;
}

export interface SliceResult {
  readonly key: string;
  readonly loop: ClosedLoopResult;
  /** clientUs: the client process's CPU per call; serveUs: the server process's. */
  readonly cpu: CpuPerOperation | undefined;
}

/** CPU of both processes over slices without calls: what every stack's CPU per call carries beside its calls. */
export interface IdleCpu {
  readonly clientUs: number;
  readonly serverUs: number;
  readonly ms: number;
}

export type ParentMessage =
  | { readonly kind: 'setup'; readonly serverPid: number; readonly ports: Readonly<Record<ServerKey, number>> }
  | ({ readonly kind: 'slice'; readonly warmupMs: number; readonly durationMs: number; readonly periodMs: number } & SliceOrder)
  | { readonly kind: 'idle'; readonly durationMs: number }
  | { readonly kind: 'results' };

export type ChildMessage =
  | { readonly kind: 'started' }
  | { readonly kind: 'servers'; readonly ports: Readonly<Record<ServerKey, number>> }
  | { readonly kind: 'ready' }
  | { readonly kind: 'sliced' }
  | { readonly kind: 'results'; readonly results: readonly SliceResult[]; readonly idle: IdleCpu }
  | { readonly kind: 'failed'; readonly message: string };
