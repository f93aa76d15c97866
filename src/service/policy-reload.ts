// ADR-24: `lockstep serve` reads its LockClass and LockGrant documents from two directories and reads
// them again when they change. A new set is adopted whole or not at all: if any file is unreadable or
// any document has a problem, the last good set keeps serving and the refusal is reported with every
// reason, as `class check` would name it.
import { type FSWatcher, watch } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ArbiterClass, Authorizer, ClassLookup } from '../../core/arbiter/policy.js';
import { PrefixGrants } from '../../core/authz/index.js';
import type { IdentityLimits } from '../../core/limits.js';
import { ClassRegistry, checkDocuments } from '../../core/classes/index.js';
import { formatProblem } from '../commands/class-check.js';
import { formatUnreadable, readDocumentFiles } from '../policy-files.js';

export interface PolicyDirs {
  readonly classes: string;
  readonly grants: string;
}

export interface LoadedPolicy {
  readonly classes: ClassRegistry;
  readonly grants: PrefixGrants;
  readonly classCount: number;
  readonly grantCount: number;
}

export type PolicyLoad = { readonly loaded: LoadedPolicy } | { readonly problems: readonly string[] };

const POLICY_FILE = /\.ya?ml$/i;
/** Editors write a file in several steps: wait for the directory to be still before reading it. */
const SETTLE_MS = 200;
/** fs.watch can miss events (network file systems, some editors' renames): look again this often. */
const POLL_MS = 5000;

async function policyFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries.filter((entry) => entry.isFile() && POLICY_FILE.test(entry.name)).map((entry) => join(dir, entry.name)).sort();
}

export async function loadPolicy(dirs: PolicyDirs, today: string): Promise<PolicyLoad> {
  let files: string[];
  try {
    files = [...new Set([...(await policyFiles(dirs.classes)), ...(await policyFiles(dirs.grants))])];
  } catch (error) {
    return { problems: [`cannot list the policy directories ${dirs.classes} and ${dirs.grants}: ${(error as Error).message}`] };
  }
  const { documents, unreadable } = await readDocumentFiles(files);
  if (unreadable.length > 0) return { problems: unreadable.map(formatUnreadable) };
  const checked = checkDocuments(documents, { today });
  if (checked.problems.length > 0) return { problems: checked.problems.map(formatProblem) };
  return { loaded: { classes: new ClassRegistry(checked.classes), grants: new PrefixGrants(checked.grants), classCount: checked.classes.length, grantCount: checked.grants.length } };
}

/** What the arbiter is given: always the current set, swapped whole on a good reload. */
export class ServingPolicy implements ClassLookup, Authorizer {
  constructor(private current: LoadedPolicy) {}

  get(namespace: string, name: string): ArbiterClass | undefined {
    return this.current.classes.get(namespace, name);
  }

  inNamespace(namespace: string): readonly ArbiterClass[] {
    return this.current.classes.inNamespace(namespace);
  }

  allows(identity: string, key: string): boolean {
    return this.current.grants.allows(identity, key);
  }

  operates(identity: string, key: string | undefined): boolean {
    return this.current.grants.operates(identity, key);
  }

  /** Issue 28: the identity's quotas from the grants serving now (core/arbiter/quotas.ts). */
  limitsOf(identity: string): IdentityLimits {
    return this.current.grants.limitsOf(identity);
  }

  get serving(): LoadedPolicy {
    return this.current;
  }

  adopt(next: LoadedPolicy): void {
    this.current = next;
  }
}

export interface PolicyWatch {
  stop(): void;
}

/** Reloads on every change of either directory (and every POLL_MS), reporting each adoption or refusal. */
export function watchPolicy(dirs: PolicyDirs, policy: ServingPolicy, today: () => string, report: (outcome: PolicyLoad) => void, initial: LoadedPolicy): PolicyWatch {
  let timer: NodeJS.Timeout | undefined;
  let running = Promise.resolve();
  let lastSeen = JSON.stringify([initial.classCount, initial.grantCount]);
  // A change the watcher saw is always reported; the poll reports only an outcome unlike the last one.
  const reload = (changed: boolean): void => {
    running = running.then(async () => {
      const outcome = await loadPolicy(dirs, today());
      const fingerprint = JSON.stringify('loaded' in outcome ? [outcome.loaded.classCount, outcome.loaded.grantCount] : outcome.problems);
      if ('loaded' in outcome) policy.adopt(outcome.loaded);
      if (changed || fingerprint !== lastSeen) report(outcome);
      lastSeen = fingerprint;
    });
  };
  const soon = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => reload(true), SETTLE_MS);
  };
  const watchers: FSWatcher[] = [...new Set([dirs.classes, dirs.grants])].map((dir) => watch(dir, soon));
  const poll = setInterval(() => reload(false), POLL_MS);
  poll.unref();
  return {
    stop: () => {
      clearTimeout(timer);
      clearInterval(poll);
      for (const watcher of watchers) watcher.close();
    },
  };
}
