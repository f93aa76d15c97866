// Finding (or installing) the etcd server binary for tests that run real clusters: Debian's
// `etcd-server` package (etcd 3.4.23 on bookworm, the version design/etcd-behaviour.md describes). The
// package may also start a system etcd on 2379/2380; the test clusters never use those ports
// (src/testing/free-port.ts).
import { type DebianProgram, ensureProgram, findProgram, installCommand } from './debian-package.js';

/** Set this to an etcd binary to skip the PATH search (e.g. a 3.5 build to compare behaviours). */
export const ETCD_BINARY_ENV = 'LOCKSTEP_ETCD_BINARY';
export const DEBIAN_ETCD_PATH = '/usr/bin/etcd';

const ETCD: DebianProgram = { name: 'etcd', debianPackage: 'etcd-server', commands: ['etcd'], fallbackPaths: [DEBIAN_ETCD_PATH], overrideEnv: ETCD_BINARY_ENV };
export const INSTALL_COMMAND = installCommand(ETCD);

/** The first executable `etcd` on PATH, then /usr/bin/etcd; undefined when there is none. */
export function findEtcdBinary(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  return findProgram(ETCD, env);
}

/** The path of an etcd server binary, installing `etcd-server` with apt-get when missing and root. */
export function ensureEtcdBinary(): Promise<string> {
  return ensureProgram(ETCD);
}
