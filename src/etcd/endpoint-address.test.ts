import { describe, expect, it } from 'vitest';
import { EndpointSyntaxError, parseEndpoint, parseEndpointList, parseEtcdEndpoints } from './endpoint-address.js';

describe('etcd endpoint syntax', () => {
  it.each([
    ['127.0.0.1:2379', 'http://127.0.0.1:2379'],
    [' http://127.0.0.1:2379 ', 'http://127.0.0.1:2379'],
    ['etcd-0.example:2379', 'http://etcd-0.example:2379'],
    ['[::1]:2379', 'http://[::1]:2379'],
  ])('accepts %j as %s', (text, url) => {
    expect(parseEndpoint(text)).toBe(url);
  });

  it.each([
    ['nonsense', /not host:port \(no port\)/],
    ['127.0.0.1:99999', /port 99999 is not from 1 to 65535/],
    ['127.0.0.1:0', /port 0 is not from 1/],
    ['https://127.0.0.1:2379', /https:\/\/ is for etcd endpoints/],
    ['unix:///tmp/etcd.sock', /only http:\/\//],
    ['127.0.0.1:2379/v3', /not host:port/],
    ['user@127.0.0.1:2379', /no path or user/],
    ['exa mple:2379', /not host:port/],
    ['', /empty/],
  ])('refuses %j', (text, reason) => {
    expect(() => parseEndpoint(text)).toThrow(EndpointSyntaxError);
    expect(() => parseEndpoint(text)).toThrow(reason);
  });

  it('reads a comma-separated list, refusing an empty one and a member named twice', () => {
    expect(parseEndpointList('127.0.0.1:1, 127.0.0.1:2,')).toEqual(['http://127.0.0.1:1', 'http://127.0.0.1:2']);
    expect(() => parseEndpointList(' , ')).toThrow(/no endpoint given/);
    expect(() => parseEndpointList('127.0.0.1:1,http://127.0.0.1:1')).toThrow(/given twice/);
    expect(() => parseEndpointList('127.0.0.1:1,nonsense')).toThrow(/"nonsense"/);
  });

  it('takes https:// for etcd members (a TLS-only etcd), keeping the scheme, and only there', () => {
    expect(parseEtcdEndpoints('https://etcd-0.etcd:2379,127.0.0.1:2379')).toEqual(['https://etcd-0.etcd:2379', 'http://127.0.0.1:2379']);
    expect(() => parseEndpointList('https://etcd-0.etcd:2379')).toThrow(/https:\/\/ is for etcd endpoints/);
    expect(() => parseEtcdEndpoints('https://127.0.0.1:2379,http://127.0.0.1:2379')).not.toThrow();
  });
});
