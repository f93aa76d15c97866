// Issue 29, ADR-24: `lockstep lock` takes the class that governs its key from the arbiter's registry (lock.v1
// DescribeKey), so a client carries no class file. A --class file still given is a claim to check: when
// it disagrees with what the arbiters serve, the lock is refused naming both, never silently overridden.
import { hostname } from 'node:os';
import type { ArbiterApi, KeyClass } from '../../core/ports/arbiter-api.js';
import type { LockClass } from '../../core/classes/index.js';
import { MAX_INSTANCE_LENGTH } from '../../core/arbiter/sessions.js';

export type ServerClass = { readonly lockClass: KeyClass } | { readonly mismatch: string };

/** `lockstep lock`'s default instance (issue 29): host name and process id, unique among a workload's replicas. */
export function defaultInstance(): string {
  return `${hostname()}:${process.pid}`.slice(-MAX_INSTANCE_LENGTH);
}

/** The server's class for `key` (`className` to choose in a namespace of several); rejects with its LockError as acquire would. */
export async function serverClass(api: ArbiterApi, key: string, className: string | undefined, local: LockClass | undefined): Promise<ServerClass> {
  const served = await api.describeKey({ key, ...(className === undefined ? {} : { className }) });
  if (local === undefined || agrees(local, served)) return { lockClass: served };
  return {
    mismatch:
      `the --class file declares ${describeClass(local.namespace, local)} but the arbiters serve ${describeClass(served.namespace, { ...served, name: served.className })} for ${key}; ` +
      'leave --class out to use the arbiters\' class, or bring the file up to date with the reviewed class (ADR-24)',
  };
}

function agrees(local: LockClass, served: KeyClass): boolean {
  return local.namespace === served.namespace && local.name === served.className && local.ttlSeconds === served.ttlSeconds && local.enforcement === served.enforcement && local.fairness === served.fairness;
}

function describeClass(namespace: string, c: Pick<LockClass, 'name' | 'ttlSeconds' | 'enforcement' | 'fairness'>): string {
  return `${namespace}/${c.name} (ttl ${c.ttlSeconds} s, ${c.enforcement}, fairness ${c.fairness})`;
}
