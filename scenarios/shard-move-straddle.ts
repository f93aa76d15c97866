// The no-drain variant's straddling hold (scenarios/shard-move.ts, ADR-09): a long job holds a moving
// key on its source shard until a late job, asking the destination once the range has flipped, is answered.
import type { LockHandle } from '../core/client/lock-client.js';
import { isLockError } from '../core/lock-error.js';
import type { ArbiterNode, World } from '../sim/world/world.js';
import type { DeadlineProbe } from './deadline-probe.js';
import { CLASS, LATE_JOB, LATE_JOB_WAIT_MS, LONG_JOB, type MapHolder, NEW_SHARD, POLL_MS, TTL_SECONDS, jobIdentity, movingKeys } from './shard-move-setup.js';

/**
 * The no-drain variant's certainty (see the header): the long job holds the first moving key on its
 * source shard from before the workload until the late job, which asks the destination for that key as
 * soon as its range has flipped, has its answer (or the workload ends).
 */
export class Straddle {
  lateOutcome = 'not asked';
  lateAskedAtMs?: number;
  longReleasedAtMs?: number;
  private lateDone = false;
  readonly done: Promise<void>;

  private constructor(
    private readonly world: World,
    private readonly map: MapHolder,
    private readonly probe: DeadlineProbe,
    readonly key: string,
    readonly from: string,
    readonly longGrantedAtMs: number,
    release: () => Promise<unknown>,
    private readonly untilMs: number,
  ) {
    this.done = this.holdUntilAnswered(release);
  }

  static async begin(world: World, map: MapHolder, arbiters: ReadonlyMap<string, ArbiterNode>, probe: DeadlineProbe, untilMs: number): Promise<Straddle> {
    const key = movingKeys(map.current)[0];
    if (key === undefined) throw new Error('shard-move: no key moves to the new shard, so no hold can straddle a flip');
    const from = map.shardOf(key);
    const node = world.addClient(`${LONG_JOB}@${from}`, { identity: jobIdentity(LONG_JOB), arbiter: world.arbiters.indexOf(arbiters.get(from) as ArbiterNode), wrapApi: probe.wrapApi });
    // Nothing else runs yet: the key is free and the grant comes at the first try (the kernel runs until it does).
    let answer: LockHandle | string | undefined;
    node.client.acquire({ key, className: CLASS.name, ttlSeconds: TTL_SECONDS, waitMs: 0, onFence: () => undefined }).then(
      (handle) => (answer = handle),
      (error: unknown) => (answer = isLockError(error) ? error.code : String(error)),
    );
    await world.kernel.runUntilCondition(() => answer !== undefined, { untilMs: world.kernel.now() + LATE_JOB_WAIT_MS });
    const held = answer;
    if (held === undefined || typeof held === 'string') throw new Error(`shard-move: the long job was not granted ${key} on ${from} with nothing else running (${held ?? `no answer in ${LATE_JOB_WAIT_MS} ms`})`);
    return new Straddle(world, map, probe, key, from, world.kernel.now(), () => held.release(), untilMs);
  }

  /** Starts the late job on the destination's arbiter: it asks for the key once its range has flipped. */
  askAfterFlip(destination: ArbiterNode): void {
    const kernel = this.world.kernel;
    const node = this.world.addClient(`${LATE_JOB}@${NEW_SHARD}`, { identity: jobIdentity(LATE_JOB), arbiter: this.world.arbiters.indexOf(destination), wrapApi: this.probe.wrapApi });
    void (async () => {
      while (kernel.now() < this.untilMs && this.map.shardOf(this.key) !== NEW_SHARD) await kernel.sleep(POLL_MS);
      if (this.map.shardOf(this.key) === NEW_SHARD) {
        this.lateAskedAtMs = kernel.now();
        try {
          const handle = await node.client.acquire({ key: this.key, className: CLASS.name, ttlSeconds: TTL_SECONDS, waitMs: LATE_JOB_WAIT_MS, onFence: () => undefined });
          this.lateOutcome = 'granted';
          await handle.release().catch(() => false);
        } catch (error) {
          this.lateOutcome = isLockError(error) ? error.code : String(error);
        }
      }
      this.lateDone = true;
    })();
  }

  private async holdUntilAnswered(release: () => Promise<unknown>): Promise<void> {
    const kernel = this.world.kernel;
    while (!this.lateDone && kernel.now() < this.untilMs) await kernel.sleep(POLL_MS);
    this.longReleasedAtMs = kernel.now();
    await release().catch(() => false);
  }

  parameters(startMs: number): Record<string, unknown> {
    const rel = (atMs: number | undefined): number => (atMs === undefined ? -1 : atMs - startMs);
    return { key: this.key, from: this.from, longGrantedAtMs: rel(this.longGrantedAtMs), lateAskedAtMs: rel(this.lateAskedAtMs), lateOutcome: this.lateOutcome, longReleasedAtMs: rel(this.longReleasedAtMs) };
  }
}

