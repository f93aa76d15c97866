import { describe, expect, it } from 'vitest';
import { DEFAULT_FRAME, plotArea } from './frame.js';
import { lineChartModel, type Series } from './line-model.js';

const area = plotArea(DEFAULT_FRAME);

const bound: Series = { id: 'bound', label: 'liveness bound', source: 'analytic', points: [{ x: 5, y: 8.5 }, { x: 60, y: 63.5 }, { x: 15, y: 18.5 }] };
const reacquire: Series = { id: 'reacquire', label: 'reacquire', source: 'simulated', points: [{ x: 5, y: 7.9 }, { x: 15, y: null }, { x: 60, y: 62.8 }] };

describe('lineChartModel', () => {
  it('maps the x extent of the data onto the plot, and y from zero to a nice value above the largest', () => {
    const model = lineChartModel([bound, reacquire], DEFAULT_FRAME);
    expect(model.xDomain).toEqual([5, 60]);
    expect(model.yDomain[0]).toBe(0);
    expect(model.yDomain[1]).toBeGreaterThanOrEqual(63.5);
    const first = model.lines[0]!.markers[0]!;
    expect([first.cx, first.x]).toEqual([area.x0, 5]);
    // y grows upwards: the largest value sits nearest the top of the plot.
    const ys = model.lines[0]!.markers.map((m) => m.cy);
    expect(ys[2]!).toBeLessThan(ys[0]!);
    expect(ys[2]!).toBeGreaterThanOrEqual(area.y1);
  });

  it('draws points in x order and skips the ones without a value', () => {
    const model = lineChartModel([bound, reacquire], DEFAULT_FRAME);
    expect(model.lines[0]!.markers.map((m) => m.x)).toEqual([5, 15, 60]);
    expect(model.lines[1]!.markers.map((m) => m.x)).toEqual([5, 60]);
    expect(model.lines[1]!.d.match(/L/g)).toHaveLength(1);
  });

  it('dashes analytic lines and keeps simulated ones solid, each in its own colour', () => {
    const [a, s] = lineChartModel([bound, reacquire], DEFAULT_FRAME).lines;
    expect(a!.dash).not.toBeNull();
    expect(s!.dash).toBeNull();
    expect(a!.colour).not.toBe(s!.colour);
  });

  it('still has axes with extent when every value is zero or there is a single x', () => {
    const model = lineChartModel([{ id: 'f', label: 'false fences', source: 'simulated', points: [{ x: 15, y: 0 }] }], DEFAULT_FRAME);
    expect(model.yDomain[1]).toBeGreaterThan(0);
    expect(model.xDomain[1]).toBeGreaterThan(model.xDomain[0]);
    expect(model.xTicks.length).toBeGreaterThan(1);
    expect(model.lines[0]!.markers[0]!.cy).toBe(area.y0);
  });

  it('refuses a frame too small for its margins', () => {
    expect(() => lineChartModel([bound], { ...DEFAULT_FRAME, width: 50 })).toThrow(/leaves no room inside its margins/);
  });
});
