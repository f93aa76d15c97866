// Results of the etcd state machines: a value, or the typed error etcd would answer with
// (STYLE.md: expected outcomes are typed results a caller can switch on, never thrown).
import { LockLogError, type LockLogErrorCode } from '../../core/ports/lock-log-error.js';
import type { Revision } from '../../core/units.js';

export type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: LockLogError };

export const succeed = <T>(value: T): Outcome<T> => ({ ok: true, value });

export const failWith = <T>(code: LockLogErrorCode, message: string, compactRevision?: Revision): Outcome<T> => ({
  ok: false,
  error: new LockLogError(code, message, compactRevision === undefined ? {} : { compactRevision }),
});
