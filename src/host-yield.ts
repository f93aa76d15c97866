// The simulation kernel's host-yield port in node (issue 16): the one rule every node host uses (the CLI's
// run, replay, explore, ttl, quorum and gate commands, and bench/). The browser's is src/web/yield-to-host.ts.
//
// The kernel awaits this port after every event that resolved a promise (sim/kernel/kernel.ts, "Promise
// continuations run at their event's time (the drain)"): it must resolve only once every microtask the
// event started, however many awaits deep, has run. An immediate does that (a macrotask starts only on an
// empty microtask queue), but one costs about ten times what node's tick queue costs, and a run drains
// hundreds of thousands of times. The tick queue drains as completely: node runs it only once the
// microtask queue is empty (processTicksAndRejections: ticks, then every microtask, then the ticks those
// queued). The tick is queued from a microtask, not directly: a yield made synchronously from a macrotask
// (a kernel run started from a timer callback, its first yield) would otherwise have its tick run before
// the microtasks already queued, and the kernel would go on with half the chain still waiting.
// sim/trace/determinism.test.ts checks the trace hashes agree with an immediate's.
//
// A tick never lets the event loop turn, and the host needs it to now and then: the explorer's watchdog
// is a host timer (src/explore/profile.ts), worker threads exchange messages, stdout drains. So every
// TURN_EVERY-th yield is an immediate: timers, I/O and messages get a turn at least every TURN_EVERY
// yields (a few milliseconds of simulation), at under 1% of an all-immediate run's yield cost.

/** At most this many yields between two turns of the event loop. */
export const TURN_EVERY = 256;

// The microtask that queues the tick is a promise reaction, not queueMicrotask(): node wraps each
// queueMicrotask callback in an AsyncResource (an object, a bound function and async-hook bookkeeping),
// about a fifth of a yield's cost here (~1.07 -> ~0.85 µs); a reaction on a settled promise is one V8 job.
const SETTLED = Promise.resolve();

/**
 * A host yield that drains microtasks through the tick queue and lets the event loop turn (an immediate)
 * on every `turnEvery`-th yield; `hostYield(1)` is an immediate every time. Each yield function counts its own yields.
 */
export function hostYield(turnEvery = TURN_EVERY): () => Promise<void> {
  if (!Number.isSafeInteger(turnEvery) || turnEvery < 1) throw new RangeError(`hostYield: turnEvery ${turnEvery} must be a whole number of at least 1 (1: an immediate every time)`);
  let sinceTurn = 0;
  return () =>
    new Promise<void>((done) => {
      sinceTurn += 1;
      if (sinceTurn >= turnEvery) {
        sinceTurn = 0;
        setImmediate(done);
      } else void SETTLED.then(() => process.nextTick(done));
    });
}

/** The node hosts' yield: one counter for the process, so a turn comes every TURN_EVERY yields whoever yields. */
export const yieldToHost: () => Promise<void> = hostYield();
