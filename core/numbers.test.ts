import { describe, expect, it } from 'vitest';
import { formatDuration, formatMs, formatNumber, formatSimulatedSeconds } from './numbers.js';

describe('the one number formatter', () => {
  it('drops trailing zeros and never prints -0', () => {
    expect([formatNumber(5089.33), formatNumber(12), formatNumber(-0.01), formatNumber(Number.NaN)]).toEqual(['5089.3', '12', '0', 'n/a']);
    expect([formatMs(544.1698178557792), formatMs(320.22871813425013, 3)]).toEqual(['544.2 ms', '320.229 ms']);
  });

  // Issue 34: the audit commands' own duration printed "5.0 s" (toFixed); the one formatter's rule won, so a
  // figure reads the same in the audit report as in every other command.
  it('says a duration in the unit that reads best, trailing zeros dropped', () => {
    expect([formatDuration(340.4), formatDuration(999.6), formatDuration(5_000), formatDuration(5_080), formatDuration(119_999)]).toEqual(['340 ms', '1000 ms', '5 s', '5.1 s', '120 s']);
    expect([formatDuration(120_000), formatDuration(150_000), formatDuration(7_200_000), formatDuration(11_520_000)]).toEqual(['2 min', '2.5 min', '2 h', '3.2 h']);
  });

  // Issue 34: the page printed a dash for both; the CLI's words won, since they say why a figure is missing.
  it('says why a simulated time is missing: not asked for, or not within the run', () => {
    expect([formatSimulatedSeconds(1_520), formatSimulatedSeconds(null), formatSimulatedSeconds(Number.POSITIVE_INFINITY)]).toEqual(['1.52 s', 'not simulated', 'never (within the run)']);
  });
});
