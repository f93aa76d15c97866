import { describe, expect, it } from 'vitest';
import { clusterIds, computeClusterId, computeMemberId, defaultPeerUrl, idHex } from './ids.js';
import { hex, sha1, utf8Bytes } from './sha1.js';

describe('SHA-1 (FIPS 180-4 test vectors)', () => {
  it('hashes the empty string, "abc", a two-block message and 1000 bytes', () => {
    expect(hex(sha1(utf8Bytes('')))).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709');
    expect(hex(sha1(utf8Bytes('abc')))).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    expect(hex(sha1(utf8Bytes('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')))).toBe('84983e441c3bd26ebaae4aa1f95129e5e54670f1');
    expect(hex(sha1(utf8Bytes('a'.repeat(1000))))).toBe('291e9a6c66994949b57ba5e650361e98fc36b1ba');
  });
});

describe("etcd's member and cluster ids (etcd-behaviour.md 5.1)", () => {
  it("gives etcd's well-known ids for its defaults: member 8e9e05c52164694d, cluster cdf818194e3a8c32", () => {
    // `etcd` with no flags: --initial-advertise-peer-urls http://localhost:2380, token etcd-cluster.
    const member = computeMemberId(['http://localhost:2380'], 'etcd-cluster');
    expect(idHex(member)).toBe('8e9e05c52164694d');
    expect(idHex(computeClusterId([member]))).toBe('cdf818194e3a8c32');
  });

  it('depends only on the peer URLs (in any order) and the token', () => {
    const urls = ['etcd-1', 'etcd-2', 'etcd-3'].map(defaultPeerUrl);
    const a = clusterIds(urls, 'tok');
    const b = clusterIds(urls, 'tok');
    expect(b).toEqual(a);
    expect(computeMemberId(['http://b:2380', 'http://a:2380'], 't')).toBe(computeMemberId(['http://a:2380', 'http://b:2380'], 't'));
    expect(computeClusterId([...a.memberIds].reverse())).toBe(a.clusterId);
    const other = clusterIds(urls, 'another-token');
    expect(other.clusterId).not.toBe(a.clusterId);
    expect(other.memberIds.every((id, i) => id !== a.memberIds[i])).toBe(true);
  });

  it('refuses two members with one peer URL', () => {
    expect(() => clusterIds(['http://a:2380', 'http://a:2380'], 't')).toThrow(/share a peer URL/);
  });
});
