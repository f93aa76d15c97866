import { describe, expect, it } from 'vitest';
import { commandDenials, commandLookup, decisionMapRows, deniedCommands, inLockstepParts, negativeClaims, retiredClaims, statusProblems, statusWordOf } from './design-status.js';
import { madeUpRepo } from './repo-view.js';

const REPO = madeUpRepo({
  'src/service/server.test.ts': "describe('lock.v1 over gRPC', () => {\n  it('grants one holder at a time', () => {});\n});\n",
  'src/service/server.ts': '',
});

/** The CLI of the fixtures: `serve`, and `shards` with its subcommand `move`. */
const exists = commandLookup([
  { name: 'serve', subcommands: [] },
  { name: 'shards', subcommands: ['move', 'size'] },
]);

/** A made-up design.md: a map with the rows given, one section per row, "Not built yet" items. */
function designOf(rows: readonly [string, string][], sections: Record<string, string>, notBuiltYet: readonly string[] = []): string {
  const map = rows.map(([n, status]) => `| [ADR-${n}](#adr-${n}) | a decision | ${status} |`);
  const items = notBuiltYet.map((item, i) => `${i + 1}. ${item}`);
  const body = rows.map(([n]) => `<a id="adr-${n}"></a>\n## ADR-${n} · A decision\n\n**Question.** Why.\n\n**In lockstep.**\n${sections[n] ?? ''}\n`);
  return ['## Decision map', '', '| | decision | in lockstep |', '|---|---|---|', ...map, '', '## Not built yet', '', ...items, '', '---', '', ...body].join('\n');
}

const CITED = '- Tests:\n  - `src/service/server.test.ts` "grants one holder at a time"';

describe('reading the decision map and its sections', () => {
  it('reads each row, its status, and each section\'s "In lockstep." part up to the next section', () => {
    const design = designOf([['18', 'partly: the service; no quotas'], ['19', 'not built']], { '18': CITED, '19': '- nothing yet' });
    expect(decisionMapRows(design).map((row) => [row.decision, row.status])).toEqual([['ADR-18', 'partly: the service; no quotas'], ['ADR-19', 'not built']]);
    expect(inLockstepParts(design).get('ADR-18')?.text).toContain('server.test.ts');
    expect(inLockstepParts(design).get('ADR-18')?.text).not.toContain('nothing yet');
  });

  it('takes the status word from the legend, "not built" before "built"', () => {
    expect(['built', 'built: x', 'partly: x', 'not built', 'Not built: x', 'yes: x', 'rebuilt'].map(statusWordOf)).toEqual(['built', 'built', 'partly', 'not built', 'not built', undefined, undefined]);
  });

  it('finds the negative claims: "no" clauses of a row, a "not built" row, "Not built yet" items, "Not built:" parts', () => {
    const design = designOf([['18', 'partly: the service; no quotas, no proxy'], ['19', 'not built']], { '18': `${CITED}\n- Not built: the proxy tier,\n  and quotas.\n- Next bullet.` }, ['**The proxy** ([ADR-18](#adr-18)):\n   run in front.']);
    expect(negativeClaims(design).map((claim) => [claim.where, claim.text.trim()])).toEqual([
      ["the decision map's ADR-18 row", 'no quotas, no proxy'],
      ["the decision map's ADR-19 row", ''],
      ['"Not built yet" item 1', '1. **The proxy** ([ADR-18](#adr-18)): run in front.'],
      ['ADR-18 "Not built:"', 'the proxy tier, and quotas.'],
    ]);
  });
});

describe('rule (a): a row that claims anything cites a test that exists', () => {
  it('passes a built row whose section cites an existing test by file and name, and a not-built row that cites none', () => {
    expect(statusProblems(designOf([['18', 'built'], ['19', 'not built']], { '18': CITED }), REPO)).toEqual([]);
  });

  it('negative control: a built row whose section cites no test, a missing test name, or a missing file', () => {
    const sections = {
      '18': '- The service: `src/service/server.ts`.',
      '19': '- Tests:\n  - `src/service/server.test.ts` "grants two holders at a time"',
      '20': '- Tests:\n  - `src/service/gone.test.ts` "grants one holder at a time"',
    };
    const problems = statusProblems(designOf([['18', 'built'], ['19', 'partly: the rule'], ['20', 'built']], sections), REPO);
    expect(problems.map((p) => p.where)).toEqual(["the decision map's ADR-18 row", "the decision map's ADR-19 row", "the decision map's ADR-20 row"]);
    expect(problems[0]?.problem).toMatch(/says "built", but ADR-18's "In lockstep." part cites no existing test/);
  });

  it('negative control: a status outside the legend ("yes") is refused, naming the words', () => {
    const problems = statusProblems(designOf([['09', 'yes: the move']], { '09': CITED }), REPO);
    expect(problems.map((p) => p.problem)).toEqual(['"yes: the move" opens with none of the legend\'s words (not built, partly, built); say which it is']);
  });
});

describe('rule (b): no negative claim denies a command the CLI has', () => {
  it('passes claims that deny things which are not commands, or mention a command only as context', () => {
    const design = designOf([['18', 'partly: `lockstep serve`, over gRPC; no quotas']], {
      '18': `${CITED}\n- Not built: a CI job that reads the session count; \`lockstep serve\` takes it as \`--sessions\`, and \`lockstep shards move\` and \`lockstep serve --topology\` serve both (the proxy, \`lockstep serve\`).`,
    }, ['**Operators** ([ADR-20](#adr-20)): admin.v1 is reached by `lockstep shards move` only; no `lockstep admin`.']);
    expect(commandDenials(design, exists)).toEqual([]);
    expect(deniedCommands(design).map((denied) => denied.words)).toEqual([['admin']]); // denied, but not a command: allowed
  });

  it('negative control: the map row and "Not built:" parts of issue 29, where the command exists, each fail', () => {
    const design = designOf([['18', 'partly: in-process; no `lockstep serve`'], ['09', 'not built: `lockstep shards move`']], {
      '18': `${CITED}\n- Not built: the protobuf contracts, the gRPC server and client, \`lockstep serve\`, the proxy tier.`,
      '09': `${CITED}\n- Not built: a \`lockstep shards move\` command; \`lockstep serve --topology\` is not built.`,
    }, ['**The service**: quotas and `lockstep serve` are missing.']);
    expect(commandDenials(design, exists).map((p) => `${p.where}: ${p.problem.split(' is not built')[0] ?? ''}`)).toEqual([
      "the decision map's ADR-18 row: says `lockstep serve`",
      "the decision map's ADR-09 row: says `lockstep shards move`",
      '"Not built yet" item 1: says `lockstep serve`',
      'ADR-18 "Not built:": says `lockstep serve`',
      'ADR-09 "Not built:": says `lockstep shards move`',
      'ADR-09 "Not built:": says `lockstep serve`',
    ]);
  });

  it('looks a subcommand up under its command, and takes other words as arguments of a command without subcommands', () => {
    expect([exists(['serve']), exists(['serve', 'now']), exists(['shards', 'move']), exists(['shards', 'archive']), exists(['admin'])]).toEqual([true, true, true, false, false]);
  });
});

describe('rule (c): a retired claim stays retired while its evidence exists', () => {
  const claims = [{ phrase: 'no gRPC service', evidence: 'src/service/server.ts' }, { phrase: 'no operator CLI', evidence: 'src/commands/admin.ts' }];

  it('negative control: the phrase back in a doc, across a line break, is named with the file that made it false', () => {
    expect(retiredClaims('docs/design.md', 'partly: in process; no gRPC\nservice', claims, REPO).map((p) => p.problem)).toEqual(['says "no gRPC service", which src/service/server.ts made false']);
  });

  it('passes a doc without the phrase, and a phrase whose evidence does not exist', () => {
    expect(retiredClaims('docs/design.md', 'built: lock.v1 over gRPC; no operator CLI', claims, REPO)).toEqual([]);
  });
});
