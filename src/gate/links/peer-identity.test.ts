import { describe, expect, it } from 'vitest';
import { MAX_REQUEST_HEAD_BYTES, readRequestHead } from './peer-identity.js';

describe('readRequestHead', () => {
  it('names the sender from X-PeerURLs and X-Server-From once the head is complete', () => {
    const head = 'GET /raft/stream/message/8e9e05c52164694d HTTP/1.1\r\nHost: 127.0.0.1:2380\r\nX-Server-From: 91bc3c398fb3c146\r\nX-PeerURLs: http://127.0.0.1:40001, http://127.0.0.2:40001\r\n\r\n';
    expect(readRequestHead(Buffer.from(head.slice(0, 40)))).toEqual({ complete: false });
    expect(readRequestHead(Buffer.from(head))).toEqual({ complete: true, peerUrls: ['http://127.0.0.1:40001', 'http://127.0.0.2:40001'], serverFrom: '91bc3c398fb3c146' });
  });

  it('a request without the headers, or a head too large, names nobody', () => {
    expect(readRequestHead(Buffer.from('GET /version HTTP/1.1\r\nHost: x\r\n\r\n'))).toEqual({ complete: true, peerUrls: [], serverFrom: undefined });
    expect(readRequestHead(Buffer.alloc(MAX_REQUEST_HEAD_BYTES, 'a'))).toEqual({ complete: true, peerUrls: [], serverFrom: undefined });
  });
});
