// Seams: the few points where a test can swap one core rule of the arbiter for a deliberately broken
// variant (a mutant), to prove that the simulator's checkers notice when the rule is missing
// (scenarios/mutants.ts, `lockstep explore --mutant`). Production never passes seams: they are not in
// ArbiterOptions, `lockstep lock` builds its arbiter from options alone, and the honest defaults below
// are exactly the rules the rest of this folder implements.
import type { TxnRequest } from '../ports/lock-log.js';
import type { ArbiterClass } from './policy.js';
import { opensOnQuorumLoss } from './fail-open.js';
import { type GrantTxnInput, grantTxn } from './grant-txn.js';
import type { AttemptTrigger } from './key-queue.js';
import { SealGuard } from './seal-guard.js';

export type { AttemptTrigger } from './key-queue.js';

export interface ArbiterSeams {
  /**
   * ADR-02/03/15: the txn one grant attempt runs, given what triggered the attempt. Honest: grantTxn,
   * the same full compare (holder key absent AND epoch record unchanged) whatever the trigger.
   */
  readonly grantTxn: (input: GrantTxnInput, trigger: AttemptTrigger) => TxnRequest;
  /** ADR-03: the guard every response header passes through. Honest: a fresh SealGuard per arbiter. */
  readonly sealGuard: () => SealGuard;
  /**
   * ADR-03, issue 19: a linearizable read confirms the cluster before the first write on a new connection
   * or after a failed call (write-confirmation.ts). Honest: true. False is the arbiter as it was before
   * issue 19, sealing one write late after a restore (the restore scenario's `*-running-arbiters` variants).
   */
  readonly confirmBeforeWrite: boolean;
  /** ADR-04: which classes an arbiter with a spool grants from memory while no majority answers. Honest: only `onQuorumLoss: open`. */
  readonly opensOnQuorumLoss: (lockClass: ArbiterClass) => boolean;
}

/** The grant txn production runs: the full compare whatever triggered the attempt (ADR-15). */
export const productionGrantTxn = (input: GrantTxnInput, _trigger: AttemptTrigger): TxnRequest => grantTxn(input);

export const HONEST_ARBITER_SEAMS: ArbiterSeams = {
  grantTxn: productionGrantTxn,
  sealGuard: () => new SealGuard(),
  confirmBeforeWrite: true,
  opensOnQuorumLoss,
};
