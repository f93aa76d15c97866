import { describe, expect, it } from 'vitest';
import { formatMs } from '../../core/numbers.js';
import { formatTime, zoomFor } from './scale.js';

describe('time scale', () => {
  it('labels ticks in the unit of the zoom: ms close up, s for a run, min:s for a long one', () => {
    expect(formatTime(1250, 2_000)).toBe('1250 ms');
    expect(formatTime(12.25, 20)).toBe('12.25 ms');
    expect(formatTime(12_500, 25_000)).toBe('12.5 s');
    expect(formatTime(3_000, 10_000)).toBe('3 s');
    expect(formatTime(125_000, 600_000)).toBe('2:05');
  });

  it('spells detail times with at most three decimals (core/numbers.ts formatMs, as the panels call it)', () => {
    expect(formatMs(320.22871813425013, 3)).toBe('320.229 ms');
    expect(formatMs(5_000, 3)).toBe('5000 ms');
  });

  it('finds the zoom that centres a window and shows just it', () => {
    const { k, tx } = zoomFor({ startMs: 4_000, endMs: 6_000 }, 20_000, 1e6);
    expect(k).toBe(10);
    // x = k·(t/extent)·width + tx·width: the window's ends land at 0 and the full width.
    expect(k * (4_000 / 20_000) + tx).toBeCloseTo(0, 9);
    expect(k * (6_000 / 20_000) + tx).toBeCloseTo(1, 9);
  });

  it('never zooms out past the whole run nor in past the finest scale', () => {
    expect(zoomFor({ startMs: -5_000, endMs: 50_000 }, 20_000, 1e6).k).toBe(1);
    expect(zoomFor({ startMs: 1, endMs: 1 }, 20_000, 500).k).toBe(500);
  });
});
