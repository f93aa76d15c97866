// The ArbiterApi's methods as data, listed once (issue 34): the call log wraps every one, the simulated
// RPC and the scenarios' connection reset decide which lost answers are `indeterminate`. `satisfies
// Record<keyof ArbiterApi, ...>` makes the compiler refuse this list when a method is added to the port
// and not here, or named here and not there.
import type { ArbiterApi } from './arbiter-api.js';

export type ArbiterMethod = keyof ArbiterApi;

/**
 * `mutating`: the call's effect may have happened when its answer is lost, so a timeout or a reset is
 * `indeterminate`, never `unavailable` (a read or a renewal only is).
 */
const ARBITER_METHODS = {
  openSession: { mutating: true },
  keepAlive: { mutating: false },
  closeSession: { mutating: true },
  acquire: { mutating: true },
  release: { mutating: true },
  validate: { mutating: false },
  inspect: { mutating: false },
  describeKey: { mutating: false },
  requestForceRelease: { mutating: true },
  approveForceRelease: { mutating: true },
  requestEpochAdvance: { mutating: true },
  approveEpochAdvance: { mutating: true },
  status: { mutating: false },
} as const satisfies Record<ArbiterMethod, { readonly mutating: boolean }>;

/** Every method of ArbiterApi, in the port's order. */
export const ARBITER_METHOD_NAMES: readonly ArbiterMethod[] = Object.keys(ARBITER_METHODS) as ArbiterMethod[];

/** The methods whose lost answer is `indeterminate`. */
export const MUTATING_ARBITER_METHODS: ReadonlySet<ArbiterMethod> = new Set(ARBITER_METHOD_NAMES.filter((method) => ARBITER_METHODS[method].mutating));
