import { describe, expect, it } from 'vitest';
import { keyTarget } from './index.js';
import { buildTimelineModel } from './model.js';
import { sampleArtifact } from './test-fixtures.js';

describe('timeline keyboard', () => {
  const model = buildTimelineModel(sampleArtifact());
  const last = model.marks.length - 1;

  it('steps through the marks in time order with the arrows, clamped at both ends', () => {
    expect(keyTarget('ArrowRight', 3, model, 0)).toBe(4);
    expect(keyTarget('ArrowLeft', 3, model, 0)).toBe(2);
    expect(keyTarget('ArrowLeft', 0, model, 0)).toBe(0);
    expect(keyTarget('ArrowRight', last, model, 0)).toBe(last);
  });

  it('starts from the first mark in view when nothing is selected', () => {
    const first = keyTarget('ArrowRight', undefined, model, 5_000);
    expect(typeof first).toBe('number');
    expect(model.marks[first as number]?.startMs).toBeGreaterThanOrEqual(5_000);
    expect(model.marks[(first as number) - 1]?.startMs).toBeLessThan(5_000);
  });

  it('goes to the first and last with Home and End, zooms with + and -, ignores other keys', () => {
    expect([keyTarget('Home', 7, model, 0), keyTarget('End', 0, model, 0)]).toEqual([0, last]);
    expect([keyTarget('+', 0, model, 0), keyTarget('=', 0, model, 0), keyTarget('-', 0, model, 0)]).toEqual(['zoom-in', 'zoom-in', 'zoom-out']);
    expect(keyTarget('a', 0, model, 0)).toBeUndefined();
  });
});
