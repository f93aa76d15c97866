// etcd's request and lease id generator (pkg/idutil/id.go, created in etcdserver/server.go l.541): high
// 2 bytes from the member id, 5 bytes of the start time in ms, 1 byte counter; Next() increments the low
// 6 bytes. LeaseGrant with id 0 takes `Next() & (2^63 - 1)` (v3_server.go l.253-258). The start time is
// the member's clock at process start, passed in: there is no clock here.
import { leaseId, type LeaseId, type MemberId } from '../../core/units.js';

const SUFFIX_BITS = 48n;
const TIMESTAMP_BITS = 40n;
const COUNTER_BITS = 8n;
const SUFFIX_MASK = (1n << SUFFIX_BITS) - 1n;
const POSITIVE_MASK = (1n << 63n) - 1n;

export class IdGenerator {
  private readonly prefix: bigint;
  private suffix: bigint;

  constructor(member: MemberId, startUnixMs: number) {
    this.prefix = (BigInt(member) & 0xffffn) << SUFFIX_BITS;
    this.suffix = (BigInt(Math.trunc(startUnixMs)) & ((1n << TIMESTAMP_BITS) - 1n)) << COUNTER_BITS;
  }

  /** The next request id; the counter may carry into the timestamp bits, as in etcd. */
  next(): bigint {
    this.suffix = (this.suffix + 1n) & ((1n << 64n) - 1n);
    return this.prefix | (this.suffix & SUFFIX_MASK);
  }

  /** A lease id for a grant that asked for 0: positive int64, never 0. */
  nextLeaseId(): LeaseId {
    for (;;) {
      const id = this.next() & POSITIVE_MASK;
      if (id !== 0n) return leaseId(id);
    }
  }
}
