// The flags of every command that reaches an operator's etcd (serve, lock --endpoints, init, audit tail;
// not gate, which starts its own) for TLS to etcd (ADR-06, ADR-20): the same three files, as flags or from the environment (a Deployment mounts them
// and sets the variables), read here once. A file that cannot be read is bad input naming the flag; a
// certificate without its key is refused.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { BadInput, systemReason } from '../cli-errors.js';
import type { EtcdClientTls } from '../etcd/etcd-tls.js';

export interface EtcdTlsFlags {
  readonly etcdCa?: string;
  readonly etcdCert?: string;
  readonly etcdKey?: string;
}

/** The flags and the environment variable each falls back to. */
const FLAGS = [
  { flag: '--etcd-ca <file>', field: 'etcdCa', env: 'LOCKSTEP_ETCD_CA', what: "the CA (PEM) that signed etcd's server certificate; the endpoints become https://" },
  { flag: '--etcd-cert <file>', field: 'etcdCert', env: 'LOCKSTEP_ETCD_CERT', what: "this client's certificate (PEM) for an etcd that requires one (--client-cert-auth); with --etcd-key" },
  { flag: '--etcd-key <file>', field: 'etcdKey', env: 'LOCKSTEP_ETCD_KEY', what: "the private key (PEM) of --etcd-cert" },
] as const;

/** Adds --etcd-ca, --etcd-cert and --etcd-key to a command that reaches etcd. */
export function addEtcdTlsOptions(command: Command): Command {
  for (const { flag, env, what } of FLAGS) command.option(flag, `${what} (or $${env})`);
  return command;
}

/** The files the flags (or, for a flag not given, the environment) name, read; undefined without TLS. */
export async function loadEtcdTls(flags: EtcdTlsFlags, env: NodeJS.ProcessEnv = process.env): Promise<EtcdClientTls | undefined> {
  const named = Object.fromEntries(FLAGS.map(({ field, env: variable }) => [field, flags[field] ?? nonEmpty(env[variable])])) as EtcdTlsFlags;
  if (named.etcdCa === undefined && named.etcdCert === undefined && named.etcdKey === undefined) return undefined;
  if ((named.etcdCert === undefined) !== (named.etcdKey === undefined)) {
    throw new BadInput(`--etcd-cert and --etcd-key go together: give both (the client certificate and its key) or neither`);
  }
  if (named.etcdCa === undefined) throw new BadInput('--etcd-cert needs --etcd-ca: name the CA that signed etcd\'s server certificate');
  const ca = await pem(named.etcdCa, '--etcd-ca');
  if (named.etcdCert === undefined || named.etcdKey === undefined) return { ca };
  return { ca, cert: await pem(named.etcdCert, '--etcd-cert'), key: await pem(named.etcdKey, '--etcd-key') };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

async function pem(path: string, flag: string): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new BadInput(`${flag} ${path}: cannot read the file: ${systemReason(error)}`);
  }
  if (!bytes.toString('latin1').includes('-----BEGIN ')) throw new BadInput(`${flag} ${path}: is not PEM (no -----BEGIN line); give the PEM file`);
  return bytes;
}
