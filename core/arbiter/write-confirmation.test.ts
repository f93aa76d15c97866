import { describe, expect, it } from 'vitest';
import { LockError } from '../lock-error.js';
import type { LockLogErrorCode } from '../ports/lock-log-error.js';
import { WriteConfirmation, suspectsConnection } from './write-confirmation.js';

/** A confirmation whose connection generation and confirm read the test drives. */
function harness(answer: () => Promise<void> = () => Promise.resolve()) {
  const state = { generation: 0, reads: 0 };
  const confirmation = new WriteConfirmation(
    () => state.generation,
    async () => {
      state.reads += 1;
      await answer();
    },
  );
  return { state, confirmation };
}

describe('WriteConfirmation (ADR-03, issue 19): a linearizable read before the first write on a new connection', () => {
  it('reads once before the first write, then not again while the connection stays the same', async () => {
    const { state, confirmation } = harness();
    expect(confirmation.needed).toBe(true);
    await confirmation.beforeWrite();
    await confirmation.beforeWrite();
    expect(state.reads).toBe(1);
    expect(confirmation.needed).toBe(false);
  });

  it('reads again after the connection generation changes (a reconnect, e.g. to restored members)', async () => {
    const { state, confirmation } = harness();
    await confirmation.beforeWrite();
    state.generation += 1;
    expect(confirmation.needed).toBe(true);
    await confirmation.beforeWrite();
    expect(state.reads).toBe(2);
  });

  it('reads again after a failed call, and a read in flight during the failure confirms nothing', async () => {
    let release: () => void = () => undefined;
    const { state, confirmation } = harness(() => new Promise<void>((done) => (release = done)));
    const first = confirmation.beforeWrite();
    confirmation.suspect(); // an error while the read was on its way: it may have gone to the old server
    release();
    await first;
    expect(confirmation.needed).toBe(true);
    const second = confirmation.beforeWrite();
    release();
    await second;
    expect([state.reads, confirmation.needed]).toEqual([2, false]);
  });

  it('shares one read among concurrent writers', async () => {
    let release: () => void = () => undefined;
    const { state, confirmation } = harness(() => new Promise<void>((done) => (release = done)));
    const writes = [confirmation.beforeWrite(), confirmation.beforeWrite(), confirmation.beforeWrite()];
    release();
    await Promise.all(writes);
    expect(state.reads).toBe(1);
  });

  it('lets the write fail with the read\'s error (a seal) and stays unconfirmed, so the next write reads again', async () => {
    const { state, confirmation } = harness(() => Promise.reject(new Error('sealed: revision 40 is below 90')));
    await expect(confirmation.beforeWrite()).rejects.toThrow(/sealed/);
    await expect(confirmation.beforeWrite()).rejects.toThrow(/sealed/);
    expect([state.reads, confirmation.needed]).toEqual([2, true]);
  });

  it('tries the read again after a leader change (a restored cluster electing), but not after a seal', async () => {
    let failures = 1;
    const { state, confirmation } = harness(() => (failures-- > 0 ? Promise.reject(new LockError('unavailable', 'not-leader: leader changed')) : Promise.resolve()));
    await confirmation.beforeWrite();
    expect([state.reads, confirmation.needed]).toEqual([2, false]);
    const sealed = harness(() => Promise.reject(new LockError('sealed', 'revision 40 is below 90')));
    await expect(sealed.confirmation.beforeWrite()).rejects.toThrow(/sealed/);
    expect(sealed.state.reads).toBe(1);
  });

  it('counts an epoch advance\'s own answer as a confirmation', () => {
    const { state, confirmation } = harness();
    confirmation.confirmedNow();
    expect([state.reads, confirmation.needed]).toEqual([0, false]);
  });

  it('suspects the connection on transport errors, not on answers about the request itself', () => {
    const transport: LockLogErrorCode[] = ['unavailable', 'timeout', 'not-leader', 'internal'];
    const definitive: LockLogErrorCode[] = ['lease-not-found', 'compacted', 'invalid-argument'];
    expect(transport.map(suspectsConnection)).toEqual([true, true, true, true]);
    expect(definitive.map(suspectsConnection)).toEqual([false, false, false]);
  });
});
