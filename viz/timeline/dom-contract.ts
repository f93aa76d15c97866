// What the timeline puts in the page for the people and programs that read it: the data attributes
// the browser tests (and anyone scripting the workbench) select on. Changing a value here is a
// change of the workbench's contract; the browser tests import these names rather than spell them.

/** Every drawn mark carries data-kind with one of these. */
export const MARK_KINDS = [
  'hold', // a grant, from its apply to its end; label: the token
  'belief', // a holder's canStart() span (ADR-12)
  'keepalive', // a session keepalive
  'leader', // a member's term as leader
  'election', // a campaign, until a leader or a give-up
  'partition', // a network partition, from cut to heal
  'pause', // a process paused (GC, SIGSTOP)
  'crash', // a process crashed (until restart)
  'stall', // a disk stall
  'expiry', // a lease expired / a hold ended by the log
  'write', // a resource write the fence accepted
  'fence-rejection', // a resource write the fence rejected (ADR-16)
  'clock', // a process's clock stepped or changed its drift
  'note', // a fault or scenario step as the schedule announced it (world lane)
] as const;
export type MarkKind = (typeof MARK_KINDS)[number];

export const ATTR = {
  /** On each mark: its MarkKind. */
  kind: 'data-kind',
  /** On each lane: the process name. */
  lane: 'data-lane',
  /** On marks and check rows that belong to a violation: the failing check's name. */
  violation: 'data-violation',
  /** On each check row: the check's name; data-ok is "true" or "false". */
  check: 'data-check',
  ok: 'data-ok',
  /** On a merged mark (many marks of one kind in one pixel column): how many it stands for. */
  count: 'data-count',
  /** On the selected mark (click, or the ←/→ keys). */
  selected: 'data-selected',
} as const;
