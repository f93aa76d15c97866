// ADR-22 on real etcd: a contended workload through an arbiter whose every call is logged at debug leaves
// no token in the log (the tokens it was granted, in decimal, hex or taken apart, and any token-sized
// number). The control logs the same workload the way the call log did before issue 28 (each request and
// answer whole) through a logger without the redaction, and finds the tokens.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ArbiterService } from '../../core/ports/caller.js';
import { ALICE, BOB, CAROL, FENCED, useArbiterWorld } from '../testing/arbiter-fixture.js';
import { tokenLeaks } from '../testing/token-leak.js';
import { runTokenWorkload } from '../testing/token-workload.js';
import { type LockstepLogger, createLogger, logArbiterCalls } from './index.js';

const world = useArbiterWorld();

function memoryStream(): { stream: Writable; lines: () => string[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  return { stream, lines: () => chunks.join('').split('\n').filter((l) => l !== '') };
}

/** The control's call log: every request and answer logged whole, as before issue 28. */
function logWhole(api: ArbiterService, logger: LockstepLogger): ArbiterService {
  return new Proxy(api, {
    get: (target, method: string) => async (caller: unknown, request: unknown) => {
      const answer: unknown = await (target[method as keyof ArbiterService] as (c: unknown, r: unknown) => Promise<unknown>).call(target, caller, request);
      logger.debug({ call: method, request, answer }, `${method} answered`);
      return answer;
    },
  });
}

async function logWorkload(logger: LockstepLogger, label: string, decorate = logArbiterCalls) {
  const arbiter = decorate(world.arbiter(), logger);
  const keys = [world.key(`${label}-a`), world.key(`${label}-b`)];
  return runTokenWorkload(arbiter, { identities: [ALICE, BOB, CAROL], keys, className: FENCED.name, ttlSeconds: FENCED.ttlSeconds, rounds: 2 });
}

describe('logs of a workload on real etcd', () => {
  it('carry every call, and no token', async () => {
    const out = memoryStream();
    const tokens = await logWorkload(createLogger({ json: true, level: 'debug', destination: out.stream }), 'logs');
    const entries = out.lines().map((line) => JSON.parse(line) as { call?: string; code?: string });
    expect(entries.filter((e) => e.call === 'acquire' && e.code === undefined)).toHaveLength(tokens.length);
    expect(entries.filter((e) => e.call === 'validate')).toHaveLength(tokens.length);
    expect(entries.some((e) => e.code === 'contended')).toBe(true);
    expect(tokenLeaks(out.lines().join('\n'), tokens)).toEqual([]);
  });

  it('the control: the same calls through pino without the redaction carry the tokens', async () => {
    const out = memoryStream();
    const tokens = await logWorkload(pino({ level: 'debug' }, out.stream), 'control', logWhole);
    expect(tokenLeaks(out.lines().join('\n'), tokens).length).toBeGreaterThan(0);
  });
});
