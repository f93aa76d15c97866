import { describe, expect, it } from 'vitest';
import { Inflights, Progress } from './progress.js';

describe('Inflights', () => {
  it('is a bounded window freed by acknowledgements', () => {
    const window = new Inflights(3);
    [5, 7, 9].forEach((index) => window.add(index));
    expect(window.full()).toBe(true);
    expect(() => window.add(10)).toThrow(/full/);
    window.freeLE(7);
    expect(window.count).toBe(1);
    window.freeFirstOne();
    expect(window.count).toBe(0);
  });
});

describe('Progress', () => {
  it('probe: one message at a time; an ack moves match and un-pauses', () => {
    const pr = new Progress(6, 4);
    expect(pr.isPaused()).toBe(false);
    pr.probeSent = true;
    expect(pr.isPaused()).toBe(true);
    expect(pr.maybeUpdate(5)).toBe(true);
    expect(pr).toMatchObject({ match: 5, next: 6, probeSent: false });
  });

  it('a rejection backs next off to the follower hint; a stale rejection is ignored', () => {
    const pr = new Progress(10, 4);
    expect(pr.maybeDecrTo(8, 3)).toBe(false);
    expect(pr.maybeDecrTo(9, 3)).toBe(true);
    expect(pr.next).toBe(4);
    pr.maybeUpdate(3);
    pr.becomeReplicate();
    pr.optimisticUpdate(8);
    expect(pr.maybeDecrTo(2, 8)).toBe(false);
    expect(pr.maybeDecrTo(6, 5)).toBe(true);
    expect(pr.next).toBe(4);
  });

  it('replicate: paused only when the in-flight window is full', () => {
    const pr = new Progress(1, 2);
    pr.becomeReplicate();
    pr.inflights.add(1);
    expect(pr.isPaused()).toBe(false);
    pr.inflights.add(2);
    expect(pr.isPaused()).toBe(true);
    pr.becomeProbe();
    expect(pr.isPaused()).toBe(false);
    expect(pr.inflights.count).toBe(0);
  });
});
