// ADR-22 on real etcd: a contended workload through an arbiter whose every call is logged at debug, with
// requests and answers in full, leaves no token in the log (the tokens it was granted, in decimal, hex or
// taken apart, and any token-sized number). The control logs the same workload through a logger without
// the redaction and finds the tokens.
import { actingAs, authenticated } from '../../core/ports/caller.js';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
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

async function logWorkload(logger: LockstepLogger, label: string) {
  const arbiter = world.arbiter();
  const keys = [world.key(`${label}-a`), world.key(`${label}-b`)];
  return runTokenWorkload((identity) => logArbiterCalls(actingAs(arbiter, authenticated(identity)), logger), { identities: [ALICE, BOB, CAROL], keys, className: FENCED.name, ttlSeconds: FENCED.ttlSeconds, rounds: 2 });
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
    const tokens = await logWorkload(pino({ level: 'debug' }, out.stream), 'control');
    expect(tokenLeaks(out.lines().join('\n'), tokens).length).toBeGreaterThan(0);
  });
});
