// Every command that reads a file the user names, under the bad files of contract-kit.ts: missing, a
// directory, empty, binary, larger than its documented limit, malformed. Exit 2, the file named, the
// rule or fix said, nothing on stdout, nothing written.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectRefusal, type Fixtures, fixtures } from './contract-kit.js';

// The assertions are the shared kit's (expectRefusal, contract-kit.ts); every test here must make at least one.
beforeEach(() => {
  expect.hasAssertions();
});

let scratch: Fixtures;
beforeAll(async () => {
  scratch = await fixtures();
});
afterAll(async () => scratch.cleanup());

const MIB = 1024 * 1024;

/** One command's file argument: how to put the file into its arguments, its limit, what an empty or malformed file is told. */
interface FileInput {
  readonly argv: (file: string) => string[];
  /** What a directory is told, when the command reads directories (ttl: the class files in it). */
  readonly directory?: RegExp;
  readonly limitBytes: number;
  readonly empty: RegExp;
  readonly malformed: { readonly text: string; readonly says: RegExp };
  readonly jsonOut?: boolean;
}

const INPUTS: Record<string, FileInput> = {
  'class check': { argv: (f) => ['class', 'check', '--now', '2026-01-01', f], limitBytes: MIB, empty: /has no documents/, malformed: { text: 'a: [1, 2\nb: {', says: /not readable YAML/ } },
  'class check --json': { argv: (f) => ['class', 'check', '--json', f], limitBytes: MIB, empty: /has no documents/, malformed: { text: 'a: 1\na: 2\n', says: /not readable YAML/ }, jsonOut: true },
  check: { argv: (f) => ['check', f, '--model', 'lock'], limitBytes: 256 * MIB, empty: /has no events/, malformed: { text: '{"process": 1, "type": "invoke"\n', says: /:1: not a JSON value/ } },
  'check --json': { argv: (f) => ['check', f, '--model', 'kv', '--json'], limitBytes: 256 * MIB, empty: /has no events/, malformed: { text: '{"process": "p1", "type": "nope"}\n', says: /:1: / }, jsonOut: true },
  ttl: { argv: (f) => ['ttl', f, '--sessions', '10'], directory: /is a directory with no \.yaml or \.yml files in it/, limitBytes: MIB, empty: /has no documents/, malformed: { text: 'kind: LockClass\n  bad: indent\n', says: /not readable YAML/ } },
  'ttl --pauses': { argv: (f) => ['ttl', 'examples/classes/ledger-writes.yaml', '--sessions', '10', '--pauses', f], limitBytes: MIB, empty: /--pauses .*JSON/, malformed: { text: '{"pausesPerHour": "often"}', says: /pausesPerHour must be a number/ } },
  'ttl --bench': { argv: (f) => ['ttl', 'examples/classes/ledger-writes.yaml', '--sessions', '10', '--bench', f], limitBytes: 16 * MIB, empty: /--bench /, malformed: { text: '{"topologies": []}', says: /neither a bench report/ } },
  quorum: { argv: (f) => ['quorum', '--topology', f], limitBytes: MIB, empty: /is not JSON/, malformed: { text: '{"name": "x"}', says: /./ } },
  'quorum --compare': { argv: (f) => ['quorum', '--topology', 'regional-3', '--compare', f], limitBytes: MIB, empty: /is not JSON/, malformed: { text: '[1, 2', says: /is not JSON/ } },
  'shards --from-bench': { argv: (f) => ['shards', '--grants-per-second', '100', '--keys', '100', '--from-bench', f], limitBytes: 16 * MIB, empty: /--from-bench /, malformed: { text: 'not json at all', says: /--from-bench / } },
  'shards --class': { argv: (f) => ['shards', '--grants-per-second', '100', '--keys', '100', '--shards', '2', '--class', f], limitBytes: MIB, empty: /has no documents/, malformed: { text: '- [', says: /not readable YAML/ } },
};

describe.each(Object.entries(INPUTS))('lockstep %s refuses a bad file', (_command, input) => {
  it('missing, a directory, binary', async () => {
    for (const [path, says] of [
      [scratch.missing, /cannot read the file: no such file; check the path/],
      [scratch.directory, input.directory ?? /cannot read the file: it is a directory/],
      [scratch.binary, /is not text \(a NUL byte on line 1\)/],
    ] as const) {
      await expectRefusal(scratch, input.argv(path), { code: 2, names: [path], says, jsonOut: input.jsonOut ?? false });
    }
  });

  it('empty', async () => {
    await expectRefusal(scratch, input.argv(scratch.empty), { code: 2, names: [scratch.empty], says: input.empty, jsonOut: input.jsonOut ?? false });
  });

  it('above its documented limit, without reading it', async () => {
    const huge = await scratch.huge(`huge-${input.limitBytes}.bin`, input.limitBytes + 1);
    await expectRefusal(scratch, input.argv(huge), { code: 2, names: [huge, 'above the limit of'], jsonOut: input.jsonOut ?? false });
  });

  it('malformed', async () => {
    const path = await scratch.text(`malformed-${Math.random().toString(36).slice(2)}.txt`, input.malformed.text);
    await expectRefusal(scratch, input.argv(path), { code: 2, names: [path], says: input.malformed.says, jsonOut: input.jsonOut ?? false });
  });
});
