// The sequential specification of one lock key and the resource it guards (docs/history-format.md,
// "The lock model"). One function per function of the history; each returns the states the operation
// can leave behind, or the reason it cannot take effect in `state`. Tokens are bigints (ADR-02).
import { fenceAccepts } from '../fence/index.js';

export type LockFunction = 'acquire' | 'release' | 'expire' | 'write';
export type ResourceKind = 'fenced' | 'unfenced';

/** A token, nobody, or a grant whose token no client was told (an acquire with unknown outcome took effect). */
export type Holder = bigint | 'none' | 'unknown';

export interface LockState {
  readonly holder: Holder;
  /** The highest token granted on this key so far; -1n before the first grant. */
  readonly highest: bigint;
  /** The fenced resource's high-water mark: the highest token it accepted; -1n before the first write. */
  readonly mark: bigint;
}

export interface LockInput {
  readonly f: LockFunction;
  /** The token a release, expiry or write names; for an acquire, the token of an unknown outcome if known. */
  readonly token: bigint | undefined;
}

export interface LockOutput {
  /** The token an acquire returned. */
  readonly token: bigint | undefined;
  /** The acquire returned the session's existing grant (ADR-13); nothing was written. */
  readonly reentered: boolean;
  /** What a release answered; false when the hold was already gone. */
  readonly released: boolean;
}

export interface LockStep {
  readonly f: LockFunction;
  readonly outcome: 'ok' | 'fail' | 'info';
  readonly input: LockInput;
  readonly output: LockOutput;
}

export type Judgement = readonly LockState[] | string;

export const INITIAL_LOCK_STATE: LockState = { holder: 'none', highest: -1n, mark: -1n };

export function judge(state: LockState, op: LockStep, resource: ResourceKind): Judgement {
  switch (op.f) {
    case 'acquire':
      return op.output.reentered ? reacquire(state, op.output.token ?? op.input.token) : acquire(state, op.outcome === 'ok' ? op.output.token : op.input.token);
    case 'release':
      return op.outcome === 'ok' && !op.output.released ? releaseOfNonHolder(state, token(op)) : end(state, token(op), 'release');
    case 'expire':
      return end(state, token(op), 'expire');
    case 'write':
      if (resource === 'unfenced') return unfencedWrite(state, token(op));
      return op.outcome === 'fail' ? fencedWriteRefused(state, token(op)) : fencedWriteTaken(state, token(op));
  }
}

function token(op: LockStep): bigint {
  if (op.input.token === undefined) throw new Error(`lock model: a ${op.f} without a token reached the search; decode must refuse it`);
  return op.input.token;
}

// A new grant: the key is free and the token is above every earlier one on this key (ADR-02). An
// acquire with unknown outcome and no known token takes effect as a grant nobody was told of.
function acquire(state: LockState, granted: bigint | undefined): Judgement {
  if (state.holder !== 'none') return `the key is ${holderText(state.holder)}, and an acquire needs it free`;
  if (granted === undefined) return [{ ...state, holder: 'unknown' }];
  if (granted <= state.highest) return `token ${granted} is not above token ${state.highest}, already granted on this key; tokens strictly increase (ADR-02)`;
  return [{ ...state, holder: granted, highest: granted }];
}

// ADR-13: the same session asked again and got its existing grant back.
function reacquire(state: LockState, granted: bigint | undefined): Judgement {
  if (granted !== undefined && state.holder === granted) return [state];
  const bound = granted === undefined ? undefined : bindUnknown(state, granted);
  if (bound !== undefined) return [bound];
  return `a re-entered acquire returns the existing grant, but the key is ${holderText(state.holder)}, not held by token ${granted}`;
}

// A release that took effect, or an expiry by the log: the hold with this token ends.
function end(state: LockState, ended: bigint, what: 'release' | 'expire'): Judgement {
  const holding = state.holder === ended ? state : bindUnknown(state, ended);
  if (holding !== undefined) return [{ ...holding, holder: 'none' }];
  const verb = what === 'release' ? 'a release that released' : 'the log expired';
  return `${verb} token ${ended}, but the key is ${holderText(state.holder)}`;
}

// `released: false`: the token no longer held the key (it expired or was force-released).
function releaseOfNonHolder(state: LockState, released: bigint): Judgement {
  if (state.holder !== released) return [state];
  return `token ${released} holds the key, so its release would have released it (released: false means the hold was already gone)`;
}

// ADR-16: the fence rule (core/fence) judges a write atomically, raising the mark. One token is one
// grant, so an equal token is the same holder writing again: the strict mode refuses it, at-or-above
// takes it, and the model takes either answer. An accepted write needs the lenient mode's yes; a
// refusal needs the strict mode's no.
function fencedWriteTaken(state: LockState, written: bigint): Judgement {
  const granted = written <= state.highest ? state : bindUnknown(state, written);
  if (granted === undefined) return `token ${written} was not granted on this key before the write took effect (highest so far: ${tokenText(state.highest)})`;
  if (!fenceAccepts(markOf(granted), written, 'at-or-above')) return `the fenced resource accepted token ${written} below its high-water mark ${granted.mark}; it must reject it (ADR-16)`;
  return [{ ...granted, mark: written }];
}

function fencedWriteRefused(state: LockState, written: bigint): Judgement {
  if (!fenceAccepts(markOf(state), written, 'above')) return [state];
  return `the fence rejected token ${written}, which is above its high-water mark ${tokenText(state.mark)}; a fence rejects only tokens below its mark (ADR-16)`;
}

/** The state's mark as the fence rule takes it: -1n (nothing accepted yet) is no mark. */
function markOf(state: LockState): bigint | undefined {
  return state.mark < 0n ? undefined : state.mark;
}

// Without a fence, a write is safe only from the most recent grant's holder: a write with an older
// token, after a newer grant, is two holders acting at once (ADR-01).
function unfencedWrite(state: LockState, written: bigint): Judgement {
  if (written === state.highest) return [state];
  const bound = bindUnknown(state, written);
  if (bound !== undefined) return [bound];
  if (written < state.highest) return `token ${written} wrote to the unfenced resource after token ${state.highest} was granted on this key: two holders acted at once (ADR-01)`;
  return `token ${written} was not granted on this key before the write took effect (highest so far: ${tokenText(state.highest)})`;
}

// A grant nobody was told of had some token above every earlier one; the first event naming such a
// token tells which.
function bindUnknown(state: LockState, named: bigint): LockState | undefined {
  return state.holder === 'unknown' && named > state.highest ? { ...state, holder: named, highest: named } : undefined;
}

export function holderText(holder: Holder): string {
  if (holder === 'none') return 'free';
  if (holder === 'unknown') return 'held by a grant whose token no client was told (an acquire with unknown outcome took effect)';
  return `held by token ${holder}`;
}

export function tokenText(token: bigint): string {
  return token < 0n ? 'none' : String(token);
}
