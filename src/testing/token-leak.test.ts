import { describe, expect, it } from 'vitest';
import { packToken } from '../../core/token.js';
import { tokenLeaks } from './token-leak.js';

const token = packToken(1, 44n);

describe('tokenLeaks', () => {
  it('finds the lines lockstep printed before issue 18 (the negative controls)', () => {
    expect(tokenLeaks(`lockstep: locked payments/ledger-1 with token ${token}`)).toEqual([`a token-sized number ${token}`]);
    expect(tokenLeaks(`  ${token}  (epoch 1, revision 44)`, [token])).toEqual([`a token-sized number ${token}`, `token ${token} taken apart (revision 44)`]);
    expect(tokenLeaks(`"tokens":["${packToken(3, 123_456n)}"]`)).toHaveLength(1);
    expect(tokenLeaks(`token=0x${token.toString(16)}`, [token])).toEqual([`token ${token} in hex`]);
  });

  it('passes what lockstep prints now: a fingerprint, a cluster ID, small numbers', () => {
    expect(tokenLeaks('lockstep: locked payments/ledger-1 (token fingerprint 3fa9c2d1; the token is in the command\'s LOCKSTEP_TOKEN)', [token])).toEqual([]);
    expect(tokenLeaks('initialised the lock log at http://127.0.0.1:2379: epoch 1, bound to cluster a8aa05bdf85cd4a3; revision 2', [token])).toEqual([]);
    expect(tokenLeaks('exit 4 after 10 s at 2026-12-02T01:02:03Z; pid 123456789012')).toEqual([]);
    expect(tokenLeaks('held by svc-a under session 1881557090365302293, not 1881557090365302298')).toEqual(['a token-sized number 1881557090365302298']);
    // A structured log line names the session in a field; the token beside it is still found.
    expect(tokenLeaks(`{"sessionId":1881557090365302293,"leaseId":"1881557090365302294","id":${token}}`)).toEqual([`a token-sized number ${token}`]);
  });
});
