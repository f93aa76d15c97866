// A token bucket on the Clock port (deterministic in the simulator): `ratePerSecond` sustained, `burst`
// above it. Issue 28's per-identity call rate limit (quotas.ts); one bucket per identity.

export class TokenBucket {
  #tokens: number;
  #atMs: number;

  constructor(nowMs: number, burst: number) {
    this.#tokens = burst;
    this.#atMs = nowMs;
  }

  /** Takes one token if there is one; the bucket refills for the time since it was last asked. */
  take(nowMs: number, ratePerSecond: number, burst: number): boolean {
    const elapsedMs = Math.max(0, nowMs - this.#atMs);
    this.#atMs = nowMs;
    this.#tokens = Math.min(burst, this.#tokens + (elapsedMs * ratePerSecond) / 1000);
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** Whether the bucket would be full now (so its identity's entry can be forgotten). */
  full(nowMs: number, ratePerSecond: number, burst: number): boolean {
    return this.#tokens + ((nowMs - this.#atMs) * ratePerSecond) / 1000 >= burst;
  }
}
