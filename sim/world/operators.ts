// The two people every simulated world has for ADR-03/20's two-person actions (an epoch advance from a
// fault schedule or a scenario's restore): each arbiter's authorizer names them operators
// (core/authz/with-operators.ts), and the simulated transport vouches for them like any process.
import { authenticated, type Caller } from '../../core/ports/caller.js';

export const SIM_OPERATORS = ['spiffe://ops/fault-schedule-1', 'spiffe://ops/fault-schedule-2'] as const;

export const SIM_OPERATOR_CALLERS: readonly [Caller, Caller] = [authenticated(SIM_OPERATORS[0]), authenticated(SIM_OPERATORS[1])];
