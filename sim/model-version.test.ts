import { describe, expect, it } from 'vitest';
import { SIM_MODEL_VERSION, UNVERSIONED_MODEL } from './model-version.js';

describe('the simulator model version', () => {
  it('is above the version of artifacts that name none, so those replay as another model', () => {
    expect(SIM_MODEL_VERSION).toBeGreaterThan(UNVERSIONED_MODEL);
    expect(Number.isInteger(SIM_MODEL_VERSION)).toBe(true);
  });
});
