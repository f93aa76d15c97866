// A member's linearizable reads (etcdserver/v3_server.go linearizableReadLoop, requestCurrentIndex,
// 3.4.23; design/etcd-behaviour.md 2.3). One ReadIndex round at a time serves every read that arrived
// before it started; reads arriving meanwhile wait for the next round. A round sends ReadIndex with a
// fresh request id and resends it (same id) every 500 ms and when this member applies the first entry of
// a new term; a new leader fails the round with ErrLeaderChanged; after ReqTimeout (7 s) it fails with
// ErrTimeout. Once the read index is known, the round waits (without a deadline) until this member has
// applied up to it, then releases its reads, which are served from this member's state.
import type { TimerId } from '../process/process.js';
import type { MemberRuntime } from './member-runtime.js';
import type { WireError } from './protocol.js';
import { LEADER_CHANGED, REQUEST_TIMED_OUT } from './wire-errors.js';

/** Called once per read: no error means "applied state is now at least as new as the read index". */
export type ReadCallback = (error: WireError | undefined) => void;

interface Round {
  readonly requestId: string;
  readonly readers: readonly ReadCallback[];
  retryTimer: TimerId;
  readonly errorTimer: TimerId;
  /** Set once the read index arrived; the round then only waits for apply. */
  index: number | undefined;
}

export class ReadIndexLoop {
  private waiting: ReadCallback[] = [];
  private round: Round | undefined;
  private roundCount = 0;

  constructor(private readonly runtime: MemberRuntime) {}

  /** Rounds started so far (for tests and metrics). */
  get rounds(): number {
    return this.roundCount;
  }

  read(done: ReadCallback): void {
    this.waiting.push(done);
    if (this.round === undefined) this.startRound();
  }

  /** A ReadIndex answer from raft (etcd readStateC). Answers of older rounds are ignored, as in etcd. */
  onReadState(requestId: string, index: number): void {
    const round = this.round;
    if (round === undefined || round.requestId !== requestId || round.index !== undefined) return;
    round.index = index;
    this.stopTimers(round);
    this.runtime.waitApplied(index, () => this.finish(round, undefined));
  }

  /** etcd leaderChangedNotifier: a new leader fails the round in flight (retryable for the client). */
  onLeaderChanged(): void {
    const round = this.round;
    if (round !== undefined && round.index === undefined) this.finish(round, LEADER_CHANGED);
  }

  /** etcd firstCommitInTermNotifier: the new leader can now answer, so ask again. */
  onFirstCommitInTerm(): void {
    const round = this.round;
    if (round !== undefined && round.index === undefined) this.send(round);
  }

  private startRound(): void {
    if (this.waiting.length === 0) return;
    const { process, timing } = this.runtime.member;
    const readers = this.waiting;
    this.waiting = [];
    this.roundCount++;
    const requestId = this.runtime.idGen.next().toString();
    const round: Round = {
      requestId,
      readers,
      retryTimer: -1,
      errorTimer: process.setTimer(timing.requestTimeoutMs, () => {
        if (this.round === round && round.index === undefined) this.finish(round, REQUEST_TIMED_OUT);
      }),
      index: undefined,
    };
    this.round = round;
    this.send(round);
  }

  private send(round: Round): void {
    const { process, timing } = this.runtime.member;
    this.runtime.member.raft()?.readIndex(round.requestId);
    if (round.retryTimer >= 0) process.cancelTimer(round.retryTimer);
    round.retryTimer = process.setTimer(timing.readIndexRetryMs, () => {
      if (this.round === round && round.index === undefined) this.send(round);
    });
  }

  private finish(round: Round, error: WireError | undefined): void {
    this.stopTimers(round);
    this.round = undefined;
    for (const reader of round.readers) reader(error);
    this.startRound();
  }

  private stopTimers(round: Round): void {
    const { process } = this.runtime.member;
    process.cancelTimer(round.retryTimer);
    process.cancelTimer(round.errorTimer);
  }
}
