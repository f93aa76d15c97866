// Where a fenced resource's writes go on the fence checker's time line (issue 15). The gate knows of each
// write only that it took effect inside [invoke, completion] on its clock, and the fence checker
// (core/checkers/fence.ts) reads the writes in the order of one instant each. Placed at their invokes, two
// overlapping writes can come out in the wrong order (a paused writer's write invoked first and published
// second), and a correct fence looks broken. So each accepted write is placed at an instant inside its
// own interval chosen to agree with token order wherever the intervals allow it: in token order, each at
// the later of its invoke and the instant before it. When that instant is past the write's completion, no
// placement agrees: a write of a higher token completed before one of a lower token began, which a fence
// must refuse, and the write is placed at its completion so the checker sees the lower token after it.
// Refused writes keep their invokes (the fenced rule judges accepted writes only). The checker breaks ties
// of instants by list order, so the writes come back in the order of their instants, token order on a tie.
import type { ResourceWrite } from '../../../core/checkers/run-history.js';

export function placeFencedWrites(writes: readonly ResourceWrite[]): ResourceWrite[] {
  const placed = new Map<ResourceWrite, ResourceWrite>();
  const byKey = new Map<string, ResourceWrite[]>();
  for (const write of writes) if (write.accepted) byKey.set(`${write.resource} ${write.key}`, [...(byKey.get(`${write.resource} ${write.key}`) ?? []), write]);
  for (const group of byKey.values()) {
    const ordered = [...group].sort((a, b) => (a.token < b.token ? -1 : a.token > b.token ? 1 : a.atMs - b.atMs));
    let running = Number.NEGATIVE_INFINITY;
    for (const write of ordered) {
      const endMs = write.endMs ?? write.atMs;
      const at = Math.max(write.atMs, running);
      const atMs = at <= endMs ? at : endMs;
      running = Math.max(running, atMs);
      placed.set(write, { ...write, atMs, endMs: atMs });
    }
  }
  return writes
    .map((write) => placed.get(write) ?? write)
    .map((write, index) => ({ write, index }))
    .sort((a, b) => a.write.atMs - b.write.atMs || (a.write.token < b.write.token ? -1 : a.write.token > b.write.token ? 1 : a.index - b.index))
    .map(({ write }) => write);
}
