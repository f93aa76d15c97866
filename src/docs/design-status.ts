// What docs/design.md says is built, held to what the repository has (issue 29). Its decision map and
// "Not built" lists went stale once: they said "no gRPC service" and "no real kit" releases after
// `lockstep serve` and `lockstep pause-test` shipped, and a newcomer would have concluded half the product
// was missing. Two rules make such a line fail a test instead:
//
// (a) A row's status opens with a word of the map's legend (built, partly, not built), and a row that is
//     not "not built" cites, in its decision's "In lockstep." part, at least one test that exists: the
//     file, and test names found in it (the docs' citation form, doc-references.ts).
// (b) No negative claim denies a command the CLI has. The negative claims are a row's status when it is
//     "not built" and its clauses that open with "no", each item of "Not built yet", and each decision's
//     "Not built:" part. A claim denies a command when it says "no `lockstep X`", says `lockstep X` "is
//     not built" (or missing, or does not exist), or lists `lockstep X` alone as one of the things
//     missing ("Not built: the gRPC server, `lockstep serve`, the proxy tier").
//
// Rule (b) reads what a claim is about, not every command it mentions: "`lockstep ttl` takes it as
// --sessions" inside a Not built part is context, not a denial. It misses a denial in running prose
// ("x and `lockstep serve` are missing" is caught, "we have no way to run `lockstep serve`" is not);
// (c) guards the claims issue 29 found by their words: a phrase once false stays out of the docs while
// the file that made it false exists. Pure: the repository comes through RepoView and the commands as
// a lookup, so the rules are tested on made-up documents.
import { type RepoView, missingTestNames, testCitations } from './doc-references.js';

/** The legend's words; "not built" is matched before "built". */
export const STATUS_WORDS = ['not built', 'partly', 'built'] as const;

export interface DesignProblem {
  readonly line: number;
  readonly where: string;
  readonly problem: string;
}

export interface MapRow {
  /** `ADR-07` */
  readonly decision: string;
  readonly line: number;
  readonly status: string;
}

interface Part {
  readonly line: number;
  readonly where: string;
  readonly text: string;
}

/** Whether `lockstep <words...>` is a command the CLI registers (the first one or two words given). */
export type CommandExists = (words: readonly string[]) => boolean;

const ROW_PATTERN = /^\| \[(ADR-\d\d)\]\(#adr-\d\d\) \| .*? \| (.*) \|$/;
const SECTION_START = /^<a id="adr-(\d\d)"><\/a>$/;
/** `lockstep` and up to two words of a command after it (options and arguments stop it). */
const COMMAND_MENTION = /\blockstep ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g;
/** After a mention and its options: "... is not built", "... are missing", "... does not exist". */
const DENIED_AFTER = /^(?:\s+--?[\w-]+(?:[ =][A-Z_]+)?)*\s+(?:(?:is|are)\s+(?:not built|missing|absent)|does not exist)/;

function linesOf(markdown: string): string[] {
  return markdown.split('\n');
}

/** The decision map's rows, in the order they stand. */
export function decisionMapRows(design: string): MapRow[] {
  return linesOf(design).flatMap((text, index) => {
    const match = ROW_PATTERN.exec(text);
    return match === null ? [] : [{ decision: match[1] ?? '', line: index + 1, status: (match[2] ?? '').trim() }];
  });
}

/** Each decision's "In lockstep." part: from that marker to the next section's anchor (or heading). */
export function inLockstepParts(design: string): Map<string, Part> {
  const parts = new Map<string, Part>();
  const lines = linesOf(design);
  let decision: string | undefined;
  let part: { line: number; lines: string[] } | undefined;
  const close = (): void => {
    if (decision !== undefined && part !== undefined) parts.set(decision, { line: part.line, where: `${decision} "In lockstep."`, text: part.lines.join('\n') });
    part = undefined;
  };
  lines.forEach((text, index) => {
    const start = SECTION_START.exec(text);
    if (start !== null || /^## (?!ADR-)/.test(text)) {
      close();
      decision = start === null ? undefined : `ADR-${start[1] ?? ''}`;
      return;
    }
    if (decision !== undefined && part === undefined && text.startsWith('**In lockstep.**')) part = { line: index + 1, lines: [] };
    part?.lines.push(text);
  });
  close();
  return parts;
}

/** The status word a row opens with, or undefined when it opens with none of the legend's. */
export function statusWordOf(status: string): (typeof STATUS_WORDS)[number] | undefined {
  const lower = status.toLowerCase();
  return STATUS_WORDS.find((word) => lower === word || new RegExp(`^${word}\\b`).test(lower));
}

/** Rule (a): every row opens with a legend word, and a row that claims anything cites a test that exists. */
export function statusProblems(design: string, repo: RepoView): DesignProblem[] {
  const parts = inLockstepParts(design);
  return decisionMapRows(design).flatMap((row): DesignProblem[] => {
    const where = `the decision map's ${row.decision} row`;
    const word = statusWordOf(row.status);
    if (word === undefined) return [{ line: row.line, where, problem: `"${row.status}" opens with none of the legend's words (${STATUS_WORDS.join(', ')}); say which it is` }];
    if (word === 'not built') return [];
    const cited = testCitations(parts.get(row.decision)?.text ?? '').filter(
      ({ file, names }) => names.length > 0 && repo.kind(file) === 'file' && missingTestNames(file, names, repo).length === 0,
    );
    if (cited.length > 0) return [];
    return [{ line: row.line, where, problem: `says "${word}", but ${row.decision}'s "In lockstep." part cites no existing test (\`file.test.ts\` "test name"); cite the test that shows it, or say it is not built` }];
  });
}

/** Splits at `separators` outside parentheses; a clause keeps its own text. */
function topLevelClauses(text: string, separators: string): string[] {
  const clauses: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth += 1;
    if (char === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && separators.includes(char)) {
      clauses.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  return [...clauses, current];
}

/** The negative claims of design.md: rows' negative parts, "Not built yet" items, each decision's "Not built:" part. */
export function negativeClaims(design: string): Part[] {
  const rows = decisionMapRows(design).flatMap((row): Part[] => {
    const where = `the decision map's ${row.decision} row`;
    if (statusWordOf(row.status) === 'not built') return [{ line: row.line, where, text: row.status.replace(/^not built:?/i, '') }];
    return topLevelClauses(row.status, ';').filter((clause) => /^\s*no\b/i.test(clause)).map((text) => ({ line: row.line, where, text }));
  });
  return [...rows, ...notBuiltYetItems(design), ...notBuiltParts(design)];
}

function notBuiltYetItems(design: string): Part[] {
  const items: Part[] = [];
  let inList = false;
  linesOf(design).forEach((text, index) => {
    if (/^## /.test(text) || text === '---') inList = text === '## Not built yet';
    else if (inList && /^\d+\. /.test(text)) items.push({ line: index + 1, where: `"Not built yet" item ${text.split('.')[0] ?? ''}`, text });
    else if (inList && /^\s+\S/.test(text) && items.length > 0) {
      const last = items.pop() as Part;
      items.push({ ...last, text: `${last.text} ${text.trim()}` });
    }
  });
  return items;
}

/** "Not built:" to the end of its paragraph or bullet, within each decision's section. */
function notBuiltParts(design: string): Part[] {
  const parts: Part[] = [];
  let decision = '';
  let open: { line: number; text: string } | undefined;
  const close = (): void => {
    if (open !== undefined) parts.push({ line: open.line, where: `${decision} "Not built:"`, text: open.text });
    open = undefined;
  };
  linesOf(design).forEach((text, index) => {
    const start = SECTION_START.exec(text);
    if (start !== null) decision = `ADR-${start[1] ?? ''}`;
    if (open !== undefined && (text.trim() === '' || /^\s*- /.test(text) || start !== null || /^#/.test(text))) close();
    const at = text.indexOf('Not built:');
    if (decision !== '' && at >= 0 && open === undefined) open = { line: index + 1, text: text.slice(at + 'Not built:'.length) };
    else if (open !== undefined) open = { ...open, text: `${open.text} ${text.trim()}` };
  });
  close();
  return parts;
}

/** A command a negative claim denies, as written (`lockstep` and one or two words), whether or not it exists. */
export interface DeniedCommand {
  readonly line: number;
  readonly where: string;
  readonly words: readonly string[];
}

/** The commands each negative claim denies: "no `lockstep X`", "`lockstep X` is not built", or `lockstep X` listed alone. */
export function deniedCommands(design: string): DeniedCommand[] {
  return negativeClaims(design).flatMap((claim) => {
    const text = claim.text.replace(/`/g, '');
    return [...text.matchAll(COMMAND_MENTION)].flatMap((mention): DeniedCommand[] => {
      const at = mention.index ?? 0;
      const first = mention[1] ?? '';
      const words = [first, ...(mention[2] === undefined ? [] : [mention[2]])];
      const denial = (command: readonly string[]): DeniedCommand[] => [{ line: claim.line, where: claim.where, words: command }];
      // "`lockstep serve` are missing": the second word the mention took may be the claim's verb.
      if (DENIED_AFTER.test(text.slice(at + 'lockstep '.length + first.length))) return denial([first]);
      if (/\bno\s+$/i.test(text.slice(0, at)) || DENIED_AFTER.test(text.slice(at + mention[0].length)) || isListedAlone(text, at)) return denial(words);
      return [];
    });
  });
}

/** Rule (b): the denied commands the CLI has. */
export function commandDenials(design: string, commandExists: CommandExists): DesignProblem[] {
  return deniedCommands(design)
    .filter((denied) => commandExists(denied.words))
    .map((denied) => ({
      line: denied.line,
      where: denied.where,
      problem: `says \`lockstep ${denied.words.join(' ')}\` is not built, but the CLI has it (src/command-table.ts); say what it does, or what of it is missing`,
    }));
}

/** Whether the mention at `at` is, alone, one element of a list: "..., `lockstep serve`, ...", "a `lockstep serve` command". */
function isListedAlone(text: string, at: number): boolean {
  let start = 0;
  for (const clause of topLevelClauses(text, ',;:')) {
    const end = start + clause.length;
    if (at >= start && at < end) {
      const element = clause.trim().replace(/[.)]+$/, '').replace(/^(?:and|or)\s+/i, '').replace(/^(?:a|an|the)\s+/i, '').replace(/\s+commands?$/i, '');
      return /^lockstep [a-z][a-z-]*(?: [a-z][a-z-]*)?(?: --?[\w-]+(?: [A-Z_]+)?)*$/.test(element);
    }
    start = end + 1;
  }
  return false;
}

/** `lockstep X` exists when X is a command, and `lockstep X Y` when X has no subcommands or Y is one of them. */
export function commandLookup(tree: readonly { readonly name: string; readonly subcommands: readonly string[] }[]): CommandExists {
  return (words) => {
    const top = tree.find((command) => command.name === words[0]);
    if (top === undefined) return false;
    const sub = words[1];
    return sub === undefined || top.subcommands.length === 0 || top.subcommands.includes(sub);
  };
}

/** Rule (c), a regression guard: a claim once made and since made false (`phrase`) may not come back while `evidence` exists. */
export function retiredClaims(doc: string, markdown: string, claims: readonly { readonly phrase: string; readonly evidence: string }[], repo: RepoView): DesignProblem[] {
  const flat = markdown.replace(/\s+/g, ' ').toLowerCase();
  return claims
    .filter((claim) => repo.kind(claim.evidence) !== undefined && flat.includes(claim.phrase.toLowerCase()))
    .map((claim) => ({ line: 0, where: doc, problem: `says "${claim.phrase}", which ${claim.evidence} made false` }));
}
