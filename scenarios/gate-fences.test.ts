import { describe, expect, it } from 'vitest';
import { ReleasedHandleFences } from './gate-fences.js';

const handle = (): { fenced: boolean } => ({ fenced: false });

describe('ReleasedHandleFences: a released hold is fenced only while its release is unanswered (issue 32)', () => {
  it('reports a watched handle once when its session is fenced', () => {
    const fences = new ReleasedHandleFences<{ fenced: boolean }>();
    const h = handle();
    const reported: string[] = [];
    fences.watch(h, () => reported.push('h'));
    fences.sessionFenced(); // another session fenced: h's is not
    expect(reported).toEqual([]);
    h.fenced = true;
    fences.sessionFenced();
    fences.sessionFenced();
    expect(reported).toEqual(['h']);
    expect(fences.size).toBe(0);
  });

  it('reports nothing for a handle whose release was answered, though its session is fenced later', () => {
    const fences = new ReleasedHandleFences<{ fenced: boolean }>();
    const answered = handle();
    const pending = handle();
    const reported: string[] = [];
    fences.watch(answered, () => reported.push('answered'));
    fences.watch(pending, () => reported.push('pending'));
    fences.confirmed(answered);
    answered.fenced = true; // one session carries every hold of the client (ADR-10)
    pending.fenced = true;
    fences.sessionFenced();
    expect(reported).toEqual(['pending']);
  });
});
