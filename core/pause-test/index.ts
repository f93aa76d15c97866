// The pause test kit (ADR-17), as one procedure against ports: see procedure.ts.
export { AFTER_WRITE, BEFORE_WRITE, type FirstHolderControl, type FirstHolderOutcome, type FirstHolderStarted, type PausePoint, type PauseTestLock, type PauseTestResource, type ResourceState, type WriteAnswer } from './ports.js';
export { type PauseTestPlan, type PauseTestPorts, type PauseTestReport, type PauseTestStep, defaultLimits, runPauseTest } from './procedure.js';
export { type TrialLimits, type TrialReport, type TrialVerdict, describeAnswer, describeState } from './trial.js';
export { type ResultDocumentInput, defaultResultName, pauseTestResultYaml } from './result-document.js';
export { WaitExpired, within } from './within.js';
