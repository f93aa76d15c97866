// The cluster's "every member applied the same entry at each index" check (Raft's State Machine Safety).
// An entry is known by its term and its request id (or its type, for an entry without a request); the
// first member to apply an index sets what every other member must apply there. Compared field by field
// and described as text only for a violation: it runs for every entry on every member (issue 16).

/** What identifies an applied entry: its request id, or its type when it carries no request. */
export type AppliedRequest = bigint | string;

export class AppliedEntries {
  private readonly byIndex = new Map<number, { readonly term: number; readonly request: AppliedRequest }>();
  /** Indexes up to this one are forgotten (forgetThrough). */
  private forgottenThrough = 0;

  /** Notes that `member` applied (term, request) at `index`; returns the violation, if another member applied something else there. */
  note(member: string, index: number, term: number, request: AppliedRequest): string | undefined {
    const seen = this.byIndex.get(index);
    if (seen === undefined) {
      this.byIndex.set(index, { term, request });
      return undefined;
    }
    if (seen.term === term && seen.request === request) return undefined;
    return `index ${index}: ${member} applied ${term}|${request} where another member applied ${seen.term}|${seen.request}`;
  }

  /** Forgets the indexes up to `index`: no member will apply them again (every member's snapshot covers them). */
  forgetThrough(index: number): void {
    if (index <= this.forgottenThrough) return;
    for (let at = this.forgottenThrough + 1; at <= index; at += 1) this.byIndex.delete(at);
    this.forgottenThrough = index;
  }

  /** Indexes remembered. */
  get size(): number {
    return this.byIndex.size;
  }
}
