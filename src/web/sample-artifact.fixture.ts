// One run artifact for the page's unit tests (artifact-file, replay-compare): the failing pause-test
// variant as the CLI saves it, reduced to the fields those modules read. Shared so the tests agree on
// what an artifact looks like, and a change of the format is made in one place.
import { SIM_MODEL_VERSION } from '../../sim/model-version.js';
import type { ArtifactJson } from './artifact-file.js';

export const SAMPLE_ARTIFACT: ArtifactJson & { readonly simModel: number } = {
  format: 'lockstep.run/1',
  simModel: SIM_MODEL_VERSION,
  scenario: 'pause-test',
  variant: 'unfenced',
  seed: '1',
  ok: false,
  checks: [{ name: 'fence', ok: false, detail: 'two writers' }],
  faults: [],
  history: { grants: [{ token: '281474976710660', grantedAtMs: 320.229 }] },
  traceHash: '60de3a830aece9c0',
};
