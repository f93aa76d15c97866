import { describe, expect, it } from 'vitest';
import { ReadOnly } from './read-only.js';

describe('ReadOnly (ReadOnlySafe)', () => {
  it('confirms a request and every request queued before it; ignores repeats and unknown ids', () => {
    const ro = new ReadOnly();
    ro.addRequest(5, { from: 'a', requestId: 'r1' });
    ro.addRequest(6, { from: 'b', requestId: 'r2' });
    ro.addRequest(9, { from: 'a', requestId: 'r1' });
    expect(ro.size).toBe(2);
    expect(ro.lastPendingRequestId()).toBe('r2');
    expect(ro.recvAck('c', 'nope')).toBeUndefined();
    ro.recvAck('a', 'r2');
    expect([...ro.recvAck('c', 'r2')!]).toEqual(['a', 'c']);
    expect(ro.advance('r2').map((s) => `${s.request.requestId}@${s.index}`)).toEqual(['r1@5', 'r2@6']);
    expect(ro.size).toBe(0);
    expect(ro.lastPendingRequestId()).toBeNull();
    expect(ro.advance('r2')).toEqual([]);
  });
});
