// The checks etcd's gRPC layer makes before a txn is proposed (etcdserver/api/v3rpc/key.go Txn,
// checkTxnRequest and checkIntervals): a request that fails them never reaches Raft, so the member runs
// this before proposing. All of them are InvalidArgument errors.
import { LockLogError } from '../../core/ports/lock-log-error.js';
import type { RequestOp, TxnRequest } from '../../core/ports/lock-log.js';
import { MAX_TXN_OPS } from './etcd-defaults.js';

/** Undefined when etcd would accept the txn; else the InvalidArgument error it would answer. */
export function validateTxn(request: TxnRequest, maxTxnOps = MAX_TXN_OPS): LockLogError | undefined {
  const opCount = Math.max(request.compare.length, request.success.length, request.failure.length);
  if (opCount > maxTxnOps) return invalid(`too many operations in txn request (${opCount} > ${maxTxnOps})`);
  if (request.compare.some((compare) => compare.key === '')) return invalid('key is not provided');
  if ([...request.success, ...request.failure].some(lacksKey)) return invalid('key is not provided');
  if (overlaps(request.success) || overlaps(request.failure)) return invalid('duplicate key given in txn request');
  return undefined;
}

/**
 * An empty key is refused (ErrGRPCEmptyKey), except a prefix range over "": clientv3 sends that as
 * key "\0" with range end "\0", i.e. every key, which the port spells `{ key: '', prefix: true }`.
 */
const lacksKey = (op: RequestOp): boolean => op.key === '' && (op.type === 'put' || op.prefix !== true);

/** checkIntervals: within one branch, no key may be put twice or both put and deleted. */
function overlaps(ops: readonly RequestOp[]): boolean {
  const deletes = ops.filter((op) => op.type === 'delete');
  const puts = new Set<string>();
  for (const op of ops) {
    if (op.type !== 'put') continue;
    if (puts.has(op.key)) return true;
    if (deletes.some((del) => (del.prefix === true ? op.key.startsWith(del.key) : op.key === del.key))) return true;
    puts.add(op.key);
  }
  return false;
}

const invalid = (message: string): LockLogError => new LockLogError('invalid-argument', message);
