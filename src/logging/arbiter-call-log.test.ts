// Issue 28: the call log carries bounded, named fields and never a token, whatever the request or the
// refusal says. A stub arbiter refuses in every way the real one quotes caller text: a stale
// force-release naming the expected token, a malformed token, a 1 MiB key. The controls: the errors the
// caller receives do carry the token and the key (so the censoring is what keeps them out of the log).
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { LOG_KEY_PREFIX_CHARS, MAX_LOG_LINE_CHARS } from '../../core/limits.js';
import { LockError } from '../../core/lock-error.js';
import type { ArbiterService } from '../../core/ports/caller.js';
import { authenticated } from '../../core/ports/caller.js';
import { parseToken } from '../../core/token.js';
import { tokenLeaks } from '../testing/token-leak.js';
import { createLogger, logArbiterCalls } from './index.js';

const TOKEN = (1n << 48n) * 3n + 4242n;
const SESSION = 8755739061635980134n; // rounded to ...80000 as a JSON number
const BIG_KEY = `payments/${'x'.repeat(1 << 20)}`;

function memoryLog(): { logger: ReturnType<typeof createLogger>; lines: () => string[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  return { logger: createLogger({ json: true, level: 'debug', destination: stream }), lines: () => chunks.join('').split('\n').filter((l) => l !== '') };
}

const stub = {
  openSession: async () => ({ sessionId: SESSION, identity: 'spiffe://t/a', ttlSeconds: 15 }),
  keepAlive: async () => ({ ttlSeconds: 15 }),
  acquire: async () => ({ key: 'payments/a', token: TOKEN, epoch: 3, revision: 4242n, sessionId: SESSION, identity: 'spiffe://t/a', className: 'c', reentered: false }),
  validate: async (_caller: unknown, request: { token: string }) => {
    parseToken(request.token);
    throw new LockError('invalid-argument', 'unreachable');
  },
  requestForceRelease: async (_caller: unknown, request: { key: string; expectedToken: string }) => {
    throw new LockError('stale', `${request.key} is no longer held with token ${request.expectedToken}; inspect it again`, { tokens: [request.expectedToken] });
  },
  release: async (_caller: unknown, request: { key: string }) => {
    throw new LockError('invalid-argument', `key ${request.key.slice(0, 60)}... is ${request.key.length} characters, over the limit`);
  },
  inspect: async () => {
    throw new Error(`wedged while reading ${TOKEN}`);
  },
} as unknown as ArbiterService;

async function workload(api: ArbiterService): Promise<LockError[]> {
  const caller = authenticated('spiffe://t/a');
  const refusals: LockError[] = [];
  const refused = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => void refusals.push(error as LockError));
  await api.openSession(caller, { ttlSeconds: 15 });
  await api.keepAlive(caller, { sessionId: SESSION as never });
  await api.acquire(caller, { sessionId: SESSION as never, key: 'payments/a', className: 'c', waitMs: 0 });
  await refused(api.validate(caller, { key: 'payments/a', token: `${TOKEN}x` }));
  await refused(api.validate(caller, { key: 'payments/a', token: `${TOKEN}"\\` }));
  await refused(api.validate(caller, { key: 'payments/a', token: `${1n << 62n}` }));
  await refused(api.requestForceRelease(caller, { key: 'payments/a', expectedToken: TOKEN.toString(), reason: 'holder wedged since 02:10' }));
  await refused(api.release(caller, { sessionId: SESSION as never, key: BIG_KEY, token: TOKEN as never }));
  await refused(api.inspect(caller, 'payments/a'));
  return refusals;
}

describe('the call log (issue 28)', () => {
  it('logs every call and refusal with bounded fields, ids as exact strings, and no token', async () => {
    const log = memoryLog();
    await workload(logArbiterCalls(stub, log.logger));
    const lines = log.lines();
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.map((e) => e['call'])).toEqual(['openSession', 'keepAlive', 'acquire', 'validate', 'validate', 'validate', 'requestForceRelease', 'release', 'inspect']);
    expect(entries.map((e) => e['code'] ?? 'ok')).toEqual(['ok', 'ok', 'ok', 'invalid-argument', 'invalid-argument', 'invalid-argument', 'stale', 'invalid-argument', 'internal']);
    expect(entries[0]?.['sessionId']).toBe(SESSION.toString()); // exact, a string
    expect(entries[1]?.['sessionId']).toBe(SESSION.toString());
    expect(entries[6]?.['error']).toMatch(/no longer held with token \[redacted\]/);
    expect(String(entries[7]?.['key']).length).toBeLessThan(LOG_KEY_PREFIX_CHARS + 30);
    expect(lines.filter((line) => line.length > MAX_LOG_LINE_CHARS)).toEqual([]);
    expect(entries.filter((e) => 'request' in e || 'answer' in e || 'err' in e)).toEqual([]);
    expect(entries[2]?.['key']).toBe('payments/a');
    expect(tokenLeaks(lines.join('\n'), [TOKEN, 1n << 62n])).toEqual([]);
  });

  it('the controls: the caller is shown the token and the key that the log leaves out', async () => {
    const refusals = await workload(stub);
    expect(refusals.map((e) => e.message).join('\n')).toContain(TOKEN.toString());
    expect(refusals.some((e) => e.message.length > MAX_LOG_LINE_CHARS || e.message.includes('x'.repeat(50)))).toBe(true);
    const stale = refusals.find((e) => e.code === 'stale');
    expect(stale?.tokens).toEqual([TOKEN.toString()]); // declared for the censor...
    expect(Object.keys(pino.stdSerializers.err(stale as LockError))).not.toContain('tokens'); // ...and not a field a serializer copies
  });
});
