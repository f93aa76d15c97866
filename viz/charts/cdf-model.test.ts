import { describe, expect, it } from 'vitest';
import { cdfChartModel, empiricalCdf, LOG_SCALE_SPREAD } from './cdf-model.js';
import { DEFAULT_FRAME, plotArea } from './frame.js';

const area = plotArea(DEFAULT_FRAME);

describe('empiricalCdf', () => {
  it('steps up by 1/n per sample, merging equal values, and ends at 1', () => {
    expect(empiricalCdf([3, 1, 2, 2])).toEqual([{ x: 1, p: 0.25 }, { x: 2, p: 0.75 }, { x: 3, p: 1 }]);
  });

  it('ignores values that are not finite and is empty for no samples', () => {
    expect(empiricalCdf([Number.NaN, Number.POSITIVE_INFINITY])).toEqual([]);
    expect(empiricalCdf([5, Number.NaN]).at(-1)).toEqual({ x: 5, p: 1 });
  });
});

describe('cdfChartModel', () => {
  const regional = { id: 'regional-3', label: 'regional-3', samplesMs: [2, 3, 4, 5, 12], references: [{ label: 'floor', valueMs: 1.9 }] };
  const stretched = { id: 'stretched', label: 'stretched-3-region', samplesMs: [30, 60, 62, 200], references: [{ label: 'floor', valueMs: 31.4 }] };

  it('uses a log x axis when the topologies span more than the spread limit, linear otherwise', () => {
    expect(200 / 1.9).toBeGreaterThan(LOG_SCALE_SPREAD);
    expect(cdfChartModel([regional, stretched], DEFAULT_FRAME).scale).toBe('log');
    expect(cdfChartModel([regional], DEFAULT_FRAME).scale).toBe('linear');
  });

  it('puts each reference inside the plot at its value, the lower floor further left', () => {
    const model = cdfChartModel([regional, stretched], DEFAULT_FRAME);
    const floors = model.lines.map((l) => l.references[0]!.at);
    for (const at of floors) {
      expect(at).toBeGreaterThanOrEqual(area.x0);
      expect(at).toBeLessThanOrEqual(area.x1);
    }
    expect(floors[0]).toBeLessThan(floors[1]!);
    expect(model.xDomain[0]).toBeLessThanOrEqual(1.9);
    expect(model.xDomain[1]).toBeGreaterThanOrEqual(200);
  });

  it('draws one step per distinct sample, rising from 0 to 100%', () => {
    const [line] = cdfChartModel([regional], DEFAULT_FRAME).lines;
    expect(line!.steps).toBe(5);
    const ys = [...line!.d.matchAll(/[ML][\d.]+,([\d.]+)/g)].map((m) => Number(m[1]));
    expect(Math.max(...ys)).toBeCloseTo(area.y0);
    expect(Math.min(...ys)).toBeCloseTo(area.y1);
  });

  it('labels log ticks 1, 2, 5 per decade within the domain', () => {
    const model = cdfChartModel([regional, stretched], DEFAULT_FRAME);
    const labels = model.xTicks.map((t) => t.label);
    expect(labels).toContain('10');
    expect(labels).toContain('100');
    expect(model.xTicks.every((t) => t.value >= model.xDomain[0] && t.value <= model.xDomain[1])).toBe(true);
  });
});
