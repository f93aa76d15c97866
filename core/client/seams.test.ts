import { describe, expect, it } from 'vitest';
import { HONEST_CLIENT_SEAMS } from './seams.js';

describe('the client seams: the honest default is ADR-12', () => {
  it('counts a keepalive from its send time, however late the answer came', () => {
    expect(HONEST_CLIENT_SEAMS.renewedAtMs(1_000, 1_002)).toBe(1_000);
    expect(HONEST_CLIENT_SEAMS.renewedAtMs(1_000, 9_000)).toBe(1_000);
  });
});
