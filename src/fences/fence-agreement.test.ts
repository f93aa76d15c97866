// One fence rule, every fence (ADR-16): the rule itself (core/fence), the simulated resource, the
// PostgreSQL reference fence on a real server and the file register give the same answer to the same
// sequence of tokens, in both modes; and the checkers (the fence checker, the lock model) find every one
// of those answers legal, while they do flag a fence that takes a token below its mark.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFence } from '../../core/checkers/fence.js';
import { INITIAL_LOCK_STATE, type LockState, judge } from '../../core/checkers/lock-rules.js';
import type { ResourceWrite } from '../../core/checkers/run-history.js';
import { type FenceMode, fenceAccepts } from '../../core/fence/index.js';
import { Kernel } from '../../sim/kernel/kernel.js';
import { Network } from '../../sim/net/network.js';
import { SimProcess } from '../../sim/process/process.js';
import { ResourceClient, type ResourceMessage, SimResource } from '../../sim/world/resource.js';
import { type PostgresServer, startPostgres } from '../testing/postgres-server.js';
import { FileRegister } from './file-register.js';
import { PostgresFence } from './postgresql.js';

const sequences = fc.array(fc.bigInt({ min: 1n, max: 12n }), { minLength: 1, maxLength: 8 });
const modes = fc.constantFrom<FenceMode>('above', 'at-or-above');
const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

function byRule(tokens: readonly bigint[], mode: FenceMode): boolean[] {
  let mark: bigint | undefined;
  return tokens.map((token) => {
    const accepted = fenceAccepts(mark, token, mode);
    if (accepted) mark = token;
    return accepted;
  });
}

async function bySimulatedResource(tokens: readonly bigint[], mode: FenceMode): Promise<{ answers: boolean[]; writes: ResourceWrite[] }> {
  const kernel = new Kernel({ seed: 'fence-agreement', yieldToHost });
  const network = new Network<ResourceMessage>(kernel, { defaults: { latency: { kind: 'constant', ms: 1 }, ordered: true } });
  const processes = new Map<string, SimProcess>();
  const add = (name: string): SimProcess => {
    const process = new SimProcess(kernel, { name });
    processes.set(name, process);
    return process;
  };
  const resource = new SimResource(add('db'), network, { fenced: true, fenceMode: mode, writeMs: 1 }, (name) => processes.get(name) as SimProcess);
  const client = new ResourceClient(kernel, network, add('writer'), 'writer');
  const answers: boolean[] = [];
  const done = (async () => {
    for (const token of tokens) answers.push(await client.write(resource, 'k', token));
  })();
  await kernel.runUntil(10 * tokens.length + 100);
  await done;
  return { answers, writes: resource.writes.map((w) => ({ ...w })) };
}

/** The lock model's verdict on the writes, every token granted beforehand (tokens are grants, ADR-02). */
function lockModelAccepts(tokens: readonly bigint[], answers: readonly boolean[]): boolean {
  let state: LockState = { ...INITIAL_LOCK_STATE, highest: tokens.reduce((a, b) => (a > b ? a : b), 0n) };
  for (const [i, token] of tokens.entries()) {
    const judged = judge(state, { f: 'write', outcome: answers[i] ? 'ok' : 'fail', input: { f: 'write', token }, output: { token: undefined, reentered: false, released: true } }, 'fenced');
    if (typeof judged === 'string') return false;
    state = judged[0] as LockState;
  }
  return true;
}

describe('one fence rule, every fence (ADR-16)', () => {
  let server: PostgresServer | undefined;
  let client: pg.Client | undefined;
  let dir = '';
  beforeAll(async () => {
    server = await startPostgres();
    client = new pg.Client({ connectionString: server.url });
    await client.connect();
    for (const mode of ['above', 'at-or-above'] as const) await new PostgresFence(client, `fenced_${mode.replace(/-/g, '_')}`, mode).createTable();
    dir = await mkdtemp(join(tmpdir(), 'lockstep-fence-agreement-'));
  }, 600_000);
  afterAll(async () => {
    await client?.end();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('the simulated resource, PostgreSQL and the file register answer as the rule does, and the checkers find it legal', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(sequences, modes, async (tokens, mode) => {
        run += 1;
        const expected = byRule(tokens, mode);
        const simulated = await bySimulatedResource(tokens, mode);
        const postgres = new PostgresFence(client as pg.Client, `fenced_${mode.replace(/-/g, '_')}`, mode);
        await postgres.createRecord(`run-${run}`);
        const register = new FileRegister(join(dir, `run-${run}`), mode);
        const viaPostgres: boolean[] = [];
        const viaRegister: boolean[] = [];
        for (const [i, token] of tokens.entries()) {
          viaPostgres.push(await postgres.write(`run-${run}`, token, `value ${i}`));
          viaRegister.push(await register.write(token, `value ${i}`));
        }
        expect({ simulated: simulated.answers, postgres: viaPostgres, register: viaRegister }).toEqual({ simulated: expected, postgres: expected, register: expected });
        expect(checkFence(simulated.writes, [{ name: 'db', fenced: true }]).ok).toBe(true);
        expect(lockModelAccepts(tokens, expected)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('negative control: the checkers flag a fence that took a token below its mark', () => {
    const writes: ResourceWrite[] = [
      { resource: 'db', key: 'k', holder: 'b', token: 9n, atMs: 1, accepted: true },
      { resource: 'db', key: 'k', holder: 'a', token: 5n, atMs: 2, accepted: true },
    ];
    expect(checkFence(writes, [{ name: 'db', fenced: true }]).ok).toBe(false);
    expect(lockModelAccepts([9n, 5n], [true, true])).toBe(false);
    // And one that refused a token above its mark (broken for liveness).
    expect(lockModelAccepts([5n, 9n], [true, false])).toBe(false);
  });
});
