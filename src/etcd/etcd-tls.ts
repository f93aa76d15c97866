// TLS to etcd (ADR-06, ADR-20): the arbiters' etcd is TLS-only, and only a client certificate its CA signed
// may write. What the adapter needs to dial it; the commands' flags for it are src/commands/etcd-tls-options.ts.

/** What an etcd client presents and trusts; PEM bytes. */
export interface EtcdClientTls {
  /** The CA that signed etcd's server certificate. */
  readonly ca: Buffer;
  /** This client's certificate and key, for an etcd started with --client-cert-auth. */
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

/** An endpoint as the client dials it: https:// whenever TLS is configured (etcd serves one scheme a port). */
export function withTlsScheme(endpoint: string, tls: EtcdClientTls | undefined): string {
  return tls === undefined ? endpoint : endpoint.replace(/^http:\/\//, 'https://');
}
