// Who dialed an etcd peer port (issue 15): every member dials every other member's one advertised peer
// URL, so a proxy in front of a member's peer port cannot tell senders apart by address. etcd's rafthttp
// names the sender on each request it sends to a peer: `X-PeerURLs` (the sender's advertised peer URLs;
// rafthttp's setPeerURLsHeader, on stream dials, pipeline posts and snapshot posts) and `X-Server-From`
// (its member ID in hex). The gate makes every member advertise its own proxy's URL, so the first URL
// names the member. Requests without either (a /version probe, etcdctl) are not a member's raft traffic.

/** A request head larger than this is not one of rafthttp's: the sender stays unknown. */
export const MAX_REQUEST_HEAD_BYTES = 16 * 1024;

export type HeadReading = { readonly complete: false } | { readonly complete: true; readonly peerUrls: readonly string[]; readonly serverFrom: string | undefined };

/** Reads the first HTTP/1.1 request head from the bytes a connection has sent so far. */
export function readRequestHead(bytes: Buffer): HeadReading {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) {
    return bytes.length >= MAX_REQUEST_HEAD_BYTES ? { complete: true, peerUrls: [], serverFrom: undefined } : { complete: false };
  }
  const lines = bytes.subarray(0, end).toString('latin1').split('\r\n').slice(1);
  let peerUrls: string[] = [];
  let serverFrom: string | undefined;
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'x-peerurls') peerUrls = value.split(',').map((url) => url.trim()).filter((url) => url.length > 0);
    else if (name === 'x-server-from') serverFrom = value;
  }
  return { complete: true, peerUrls, serverFrom };
}
