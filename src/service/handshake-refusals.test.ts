import { describe, expect, it } from 'vitest';
import { type HandshakeRefusal, HandshakeRefusals } from './handshake-refusals.js';

function book(maxPeers?: number): { refusals: HandshakeRefusals; lines: HandshakeRefusal[]; at: { ms: number } } {
  const lines: HandshakeRefusal[] = [];
  const at = { ms: 0 };
  return { refusals: new HandshakeRefusals({ log: (r) => lines.push(r), nowMs: () => at.ms, ...(maxPeers === undefined ? {} : { maxPeers }) }), lines, at };
}

describe('HandshakeRefusals', () => {
  it('logs a peer once a minute, then says how many were not logged', () => {
    const { refusals, lines, at } = book();
    for (let i = 0; i < 5; i++) refusals.refused('10.0.0.7', 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA');
    refusals.refused('10.0.0.8', 'ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE', 'CN=ledger-writer');
    at.ms = 59_999;
    refusals.refused('10.0.0.7', 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA');
    expect(lines.map((l) => l.peer)).toEqual(['10.0.0.7', '10.0.0.8']);
    at.ms = 60_000;
    refusals.refused('10.0.0.7', 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA');
    expect(lines).toEqual([
      { peer: '10.0.0.7', reason: 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', suppressed: 0 },
      { peer: '10.0.0.8', reason: 'ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE', subject: 'CN=ledger-writer', suppressed: 0 },
      { peer: '10.0.0.7', reason: 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', suppressed: 5 },
    ]);
  });

  it('remembers at most maxPeers, forgetting the oldest, so many addresses cannot grow it without bound', () => {
    const { refusals, lines } = book(2);
    for (const peer of ['a', 'b', 'c', 'a']) refusals.refused(peer, 'x');
    // 'a' was forgotten when 'c' came, so its second refusal is logged again.
    expect(lines.map((l) => l.peer)).toEqual(['a', 'b', 'c', 'a']);
  });

  it('bounds the text of a reason', () => {
    const { refusals, lines } = book();
    refusals.refused('a', 'r'.repeat(10_000));
    expect(lines[0]?.reason).toHaveLength(200);
  });
});
