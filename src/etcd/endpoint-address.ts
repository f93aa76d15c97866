// What an etcd endpoint may look like: host:port or http://host:port, nothing else. One rule for every
// command that takes --endpoints (lock, init) and for the adapter itself (member-client.ts), so a typo is
// refused as bad input naming the flag before anything dials, instead of surfacing as gRPC noise.

export class EndpointSyntaxError extends Error {
  override readonly name = 'EndpointSyntaxError';
}

const MAX_PORT = 65_535;

export interface EndpointRules {
  /** An etcd member may be https:// (TLS to etcd: ADR-06/20); the addresses lockstep listens on may not. */
  readonly allowHttps?: boolean;
}

/**
 * The endpoint as an http:// URL with host and port only (https:// when it was given so and `allowHttps`);
 * throws EndpointSyntaxError saying why not.
 */
export function parseEndpoint(text: string, rules: EndpointRules = {}): string {
  const trimmed = text.trim();
  if (trimmed === '') throw new EndpointSyntaxError('an endpoint is empty');
  const https = /^https:\/\//i.test(trimmed);
  if (https && rules.allowHttps !== true) throw new EndpointSyntaxError(`${JSON.stringify(trimmed)}: give host:port here; https:// is for etcd endpoints`);
  const hostPort = trimmed.replace(/^https?:\/\//i, '');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(hostPort)) throw new EndpointSyntaxError(`${JSON.stringify(trimmed)}: only http:// endpoints are supported (and https:// for etcd members)`);
  const port = /:(\d+)$/.exec(hostPort)?.[1];
  if (port === undefined) throw new EndpointSyntaxError(`${JSON.stringify(trimmed)} is not host:port (no port); give a member's client address, like 127.0.0.1:2379`);
  const portNumber = Number(port);
  if (portNumber < 1 || portNumber > MAX_PORT) throw new EndpointSyntaxError(`${JSON.stringify(trimmed)}: port ${port} is not from 1 to ${MAX_PORT}`);
  let url: URL;
  try {
    url = new URL(`http://${hostPort}`);
  } catch {
    throw new EndpointSyntaxError(`${JSON.stringify(trimmed)} is not host:port; give a member's client address, like 127.0.0.1:2379`);
  }
  if (url.hostname === '' || url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '' || hostPort.includes('/')) {
    throw new EndpointSyntaxError(`${JSON.stringify(trimmed)} is not host:port (only a host and a port, no path or user); like 127.0.0.1:2379`);
  }
  return `${https ? 'https' : 'http'}://${url.hostname}:${portNumber}`;
}

/** A comma-separated --endpoints value: every entry parsed, at least one, no duplicates. */
export function parseEndpointList(text: string, rules: EndpointRules = {}): string[] {
  const entries = text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (entries.length === 0) throw new EndpointSyntaxError('no endpoint given; give host:port of at least one etcd member, comma-separated');
  const endpoints = entries.map((entry) => parseEndpoint(entry, rules));
  const duplicate = endpoints.find((endpoint, i) => endpoints.indexOf(endpoint) !== i);
  if (duplicate !== undefined) throw new EndpointSyntaxError(`${duplicate} is given twice; name each member once`);
  return endpoints;
}

/** etcd members' endpoints: host:port, http:// or https:// (a TLS-only etcd, --etcd-ca and friends). */
export function parseEtcdEndpoints(text: string): string[] {
  return parseEndpointList(text, { allowHttps: true });
}
