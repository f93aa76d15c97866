// ADR-11's verdict on a class's TTL: inside the platform range, at or above the advisory floor, and the
// class's other rule problems (from core/classes), so the class pull request sees one list.
import { ADVISORY_TTL_FLOOR_SECONDS, TTL_MAX_SECONDS, TTL_MIN_SECONDS } from '../classes/index.js';

export interface VerdictProblem {
  readonly field: string;
  readonly message: string;
  readonly fix: string;
}

export interface TtlVerdict {
  readonly ok: boolean;
  readonly inRange: boolean;
  readonly aboveAdvisoryFloor: boolean;
  readonly problems: readonly VerdictProblem[];
}

/** `classProblems` are core/classes' findings for this class; ADR-11's are added unless already among them. */
export function ttlVerdict(ttlSeconds: number, enforcement: string | undefined, classProblems: readonly VerdictProblem[]): TtlVerdict {
  const inRange = ttlSeconds >= TTL_MIN_SECONDS && ttlSeconds <= TTL_MAX_SECONDS;
  const aboveAdvisoryFloor = enforcement !== 'advisory' || ttlSeconds >= ADVISORY_TTL_FLOOR_SECONDS;
  const problems = [...classProblems];
  const ttlReported = problems.some((p) => p.field === 'spec.ttlSeconds');
  if (!ttlReported && !inRange) {
    problems.push({ field: 'spec.ttlSeconds', message: `is ${ttlSeconds} s, outside the platform range ${TTL_MIN_SECONDS}..${TTL_MAX_SECONDS} s (ADR-11)`, fix: `choose a TTL from ${TTL_MIN_SECONDS} to ${TTL_MAX_SECONDS} s` });
  }
  if (!ttlReported && !aboveAdvisoryFloor) {
    problems.push({ field: 'spec.ttlSeconds', message: `is ${ttlSeconds} s, below the ${ADVISORY_TTL_FLOOR_SECONDS} s floor for advisory classes (ADR-11)`, fix: `set ttlSeconds: ${ADVISORY_TTL_FLOOR_SECONDS} or more, or fence the resource` });
  }
  return { ok: problems.length === 0, inRange, aboveAdvisoryFloor, problems };
}
