// The keepalive stream of a session: many renewals on one stream, answered in order; a failed or silent
// stream fails its waiting renewals and is closed, so the next renewal opens another.
import { describe, expect, it } from 'vitest';
import { isLockError } from '../../core/lock-error.js';
import { type KeepAliveAnswer, KeepAliveStream, type OpenKeepAlive } from './keepalive-stream.js';

/** A fake server: answers each request with ttl = the request's number, or throws on `fail`, or never answers on `silent`. */
function fakeServer(behaviour: (n: number) => 'answer' | 'fail' | 'silent') {
  const opened: number[][] = [];
  const open: OpenKeepAlive<number> = (requests, signal) =>
    (async function* answers(): AsyncIterable<KeepAliveAnswer> {
      const seen: number[] = [];
      opened.push(seen);
      for await (const n of requests) {
        seen.push(n);
        const what = behaviour(n);
        if (what === 'fail') throw new Error(`stream broke at ${n}`);
        if (what === 'silent') await new Promise((resolve) => signal.addEventListener('abort', resolve));
        if (signal.aborted) return;
        yield { ttlSeconds: n };
      }
    })();
  return { open, opened };
}

describe('KeepAliveStream', () => {
  it('carries every renewal of a session on one stream, answers in order', async () => {
    const server = fakeServer(() => 'answer');
    const stream = new KeepAliveStream(server.open);
    const first = await stream.renew(1, 1000);
    const rest = await Promise.all([stream.renew(2, 1000), stream.renew(3, 1000)]);
    expect([first, ...rest].map((a) => a.ttlSeconds)).toEqual([1, 2, 3]);
    expect(server.opened).toEqual([[1, 2, 3]]);
    stream.close();
    expect(stream.closed).toBe(true);
  });

  it('a broken stream fails its renewal and closes (the caller opens a new one)', async () => {
    const server = fakeServer((n) => (n === 2 ? 'fail' : 'answer'));
    const stream = new KeepAliveStream(server.open);
    expect((await stream.renew(1, 1000)).ttlSeconds).toBe(1);
    await expect(stream.renew(2, 1000)).rejects.toThrow('stream broke at 2');
    expect(stream.closed).toBe(true);
    await expect(stream.renew(3, 1000)).rejects.toSatisfy((error: unknown) => isLockError(error, 'unavailable'));
  });

  it('a renewal unanswered past its deadline fails unavailable and closes the stream', async () => {
    const server = fakeServer(() => 'silent');
    const stream = new KeepAliveStream(server.open);
    await expect(stream.renew(1, 50)).rejects.toSatisfy((error: unknown) => isLockError(error, 'unavailable'));
    expect(stream.closed).toBe(true);
  });
});
