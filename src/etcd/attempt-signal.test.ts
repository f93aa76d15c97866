import { describe, expect, it } from 'vitest';
import { AttemptAbandon } from './attempt-signal.js';

describe('AttemptAbandon', () => {
  it('tells each listener once, at abort, and only the ones still listening', () => {
    const abandon = new AttemptAbandon();
    const heard: string[] = [];
    abandon.onAbort(() => heard.push('a'));
    const remove = abandon.onAbort(() => heard.push('b'));
    remove();
    expect(abandon.aborted).toBe(false);
    expect(heard).toEqual([]);
    abandon.abort();
    abandon.abort();
    expect(abandon.aborted).toBe(true);
    expect(heard).toEqual(['a']);
  });

  it('tells a listener added after the abort at once', () => {
    const abandon = new AttemptAbandon();
    abandon.abort();
    let heard = 0;
    abandon.onAbort(() => (heard += 1));
    expect(heard).toBe(1);
  });
});
