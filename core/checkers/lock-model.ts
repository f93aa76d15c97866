// The lock model for the linearizability checker (ADR-23: "Porcupine checks each history against a
// sequential lock model"), partitioned per key. The rules are in lock-rules.ts; this file reads history
// lines into them and describes states and operations. Semantics: docs/history-format.md.
import { LOG_PROCESS } from './history.js';
import { INITIAL_LOCK_STATE, type LockInput, type LockOutput, type LockState, type ResourceKind, holderText, judge, tokenText } from './lock-rules.js';
import type { Decoded, Model, Operation } from './model.js';
import type { RawOperation } from './operations.js';
import { type Read, readFlag, readOptionalToken, readToken } from './values.js';

export type LockOperation = Operation<LockInput, LockOutput>;
export type LockModel = Model<LockState, LockInput, LockOutput>;

export interface LockModelOptions {
  /** `fenced` (default): writes go through a fence holding a high-water mark (ADR-16). */
  readonly resource?: ResourceKind;
}

const NO_OUTPUT: LockOutput = { token: undefined, reentered: false, released: true };

export function lockModel(options: LockModelOptions = {}): LockModel {
  const resource = options.resource ?? 'fenced';
  const asStep = (op: LockOperation) => ({ f: op.input.f, outcome: op.outcome, input: op.input, output: op.output });
  return {
    name: `lock (${resource} resource)`,
    decode: (op) => decodeLockOperation(op, resource),
    init: () => INITIAL_LOCK_STATE,
    step: (state, op) => {
      const judgement = judge(state, asStep(op), resource);
      return typeof judgement === 'string' ? [] : judgement;
    },
    explain: (state, op) => {
      const judgement = judge(state, asStep(op), resource);
      return typeof judgement === 'string' ? judgement : 'it can take effect here';
    },
    stateKey: (state) => `${state.holder}|${state.highest}|${state.mark}`,
    describeState: (state) => {
      const parts = [holderText(state.holder), `highest token granted ${tokenText(state.highest)}`];
      if (resource === 'fenced') parts.push(`fence mark ${tokenText(state.mark)}`);
      return parts.join('; ');
    },
    describeOperation: describeLockOperation,
  };
}

export function decodeLockOperation(op: RawOperation, resource: ResourceKind): Decoded<LockInput, LockOutput> {
  const where = `${op.f} by ${op.process}`;
  if (op.process === LOG_PROCESS && op.f !== 'expire') return bad(`the "${LOG_PROCESS}" process records only "expire" events in the lock model, not "${op.f}"`);
  switch (op.f) {
    case 'acquire':
      return decodeAcquire(op, where);
    case 'release':
      if (op.outcome === 'fail') return { kind: 'no-effect' };
      // Only an ok release answers; the value of an info completion is whatever the error said.
      return withToken(op, 'release', where, () => (op.outcome === 'ok' ? readFlag(op.output, 'released', true, `${where}: completion value`) : { ok: true, value: true }));
    case 'expire':
      if (op.process !== LOG_PROCESS) return bad(`"expire" is a log event: give it with "process": "${LOG_PROCESS}"`);
      return withToken(op, 'expire', where, () => ({ ok: true, value: true }));
    case 'write':
      if (op.outcome === 'fail' && resource === 'unfenced') return { kind: 'no-effect' };
      return withToken(op, 'write', where, () => ({ ok: true, value: true }));
    default:
      return bad(`"f" is ${JSON.stringify(op.f)}; the lock model knows "acquire", "release", "expire" and "write"`);
  }
}

function decodeAcquire(op: RawOperation, where: string): Decoded<LockInput, LockOutput> {
  if (op.outcome === 'fail') return { kind: 'no-effect' };
  if (op.outcome === 'info') {
    const known = readOptionalToken(op.output, `${where}: completion value`);
    if (!known.ok) return bad(known.message, 'completion');
    return { kind: 'operation', input: { f: 'acquire', token: known.value }, output: NO_OUTPUT };
  }
  const granted = readToken(op.output, `${where}: an ok acquire's value`);
  if (!granted.ok) return bad(granted.message, 'completion');
  const reentered = readFlag(op.output, 'reentered', false, `${where}: an ok acquire's value`);
  if (!reentered.ok) return bad(reentered.message, 'completion');
  return { kind: 'operation', input: { f: 'acquire', token: undefined }, output: { token: granted.value, reentered: reentered.value, released: true } };
}

function withToken(op: RawOperation, f: 'release' | 'expire' | 'write', where: string, released: () => Read<boolean>): Decoded<LockInput, LockOutput> {
  const token = readToken(op.input, `${where}: ${f === 'expire' ? 'the value' : "the invoke's value"}`);
  if (!token.ok) return bad(token.message);
  const flag = released();
  if (!flag.ok) return bad(flag.message, 'completion');
  return { kind: 'operation', input: { f, token: token.value }, output: { ...NO_OUTPUT, released: flag.value } };
}

function bad(message: string, at: 'invoke' | 'completion' = 'invoke'): Decoded<LockInput, LockOutput> {
  return { kind: 'bad', message, at };
}

export function describeLockOperation(op: LockOperation): string {
  const unknown = op.outcome === 'info';
  const token = op.input.token;
  switch (op.input.f) {
    case 'acquire':
      if (unknown) return token === undefined ? 'acquire → unknown' : `acquire → unknown (token ${token})`;
      return `acquire → token ${op.output.token}${op.output.reentered ? ' (re-entered)' : ''}`;
    case 'release':
      return `release token ${token} → ${unknown ? 'unknown' : op.output.released ? 'released' : 'not held (released: false)'}`;
    case 'expire':
      return `expires token ${token}`;
    case 'write':
      return `write token ${token} → ${unknown ? 'unknown' : op.outcome === 'ok' ? 'accepted' : 'rejected by the fence'}`;
  }
}
