// etcd's member and cluster ids (design/etcd-behaviour.md 5.1), computed as etcd computes them:
// - member id = first 8 bytes (big-endian) of SHA-1(sorted peer URLs concatenated + cluster token)
//   (membership/member.go computeMemberId, with no time suffix, as bootstrap and restore call it);
// - cluster id = first 8 bytes of SHA-1(the member ids, sorted ascending, each as 8 big-endian bytes)
//   (membership/cluster.go genID).
// So a cluster restored from a snapshot with the same peer URLs and cluster token comes back with the
// same ids (ADR-03's reason to also check the revision), and a new token gives new ones.
import { clusterId, memberId, type ClusterId, type MemberId } from '../../core/units.js';
import { sha1, utf8Bytes } from './sha1.js';

/** etcdctl's default `--initial-cluster-token` (etcdctl/ctlv3/command/snapshot_command.go l.81-87). */
export const DEFAULT_CLUSTER_TOKEN = 'etcd-cluster';

/** The peer URL a simulated member advertises when none is given: `http://<name>:2380`. */
export function defaultPeerUrl(name: string): string {
  return `http://${name}:2380`;
}

export function computeMemberId(peerUrls: readonly string[], clusterToken: string): MemberId {
  const joined = [...peerUrls].sort(compareGoStrings).join('') + clusterToken;
  return memberId(firstEightBytes(sha1(utf8Bytes(joined))));
}

export function computeClusterId(memberIds: readonly MemberId[]): ClusterId {
  const sorted = [...memberIds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const bytes = new Uint8Array(8 * sorted.length);
  const view = new DataView(bytes.buffer);
  sorted.forEach((id, i) => view.setBigUint64(8 * i, id));
  return clusterId(firstEightBytes(sha1(bytes)));
}

/** The ids of a cluster whose members advertise `peerUrls` (one URL each), in member order. */
export function clusterIds(peerUrls: readonly string[], clusterToken: string): { readonly memberIds: readonly MemberId[]; readonly clusterId: ClusterId } {
  const memberIds = peerUrls.map((url) => computeMemberId([url], clusterToken));
  if (new Set(memberIds).size !== memberIds.length) throw new Error(`cluster ids: two members share a peer URL (${peerUrls.join(', ')}); each member needs its own`);
  return { memberIds, clusterId: computeClusterId(memberIds) };
}

/** The 16-hex-digit form etcd prints ids in. */
export function idHex(id: bigint): string {
  return id.toString(16).padStart(16, '0');
}

function firstEightBytes(digest: Uint8Array): bigint {
  return new DataView(digest.buffer, digest.byteOffset, 8).getBigUint64(0);
}

/** Go's sort.Strings orders by bytes; for the ASCII URLs used here that is code-unit order. */
function compareGoStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
