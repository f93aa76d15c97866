// The fence rule (ADR-16/17): one function every fence in lockstep calls. See fence-rule.ts.
export { DEFAULT_FENCE_MODE, FENCE_MODES, type FenceMode, describeFenceMode, fenceAccepts, isFenceMode, markAfter, sqlMarkComparison } from './fence-rule.js';
