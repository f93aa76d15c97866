// Marks from the artifact's history (present in every run artifact, with or without a timeline): holds
// as the log applied them, the holders' canStart() beliefs (ADR-12), the resources' writes and fence
// rejections (ADR-16), and the expiries that ended holds.
import type { RunArtifactView } from '../artifact/schema.js';
import type { LaneIndex } from './lanes.js';
import { type MarkDraft, NO_VIOLATIONS } from './types.js';

export function historyMarks(artifact: RunArtifactView, lanes: LaneIndex, runEndMs: number): MarkDraft[] {
  const marks: MarkDraft[] = [];
  for (const g of artifact.history.grants) {
    const lane = lanes.laneOfHolder(g.holder);
    const details = {
      key: g.key,
      token: g.token,
      holder: g.holder,
      cluster: g.cluster ?? null,
      revision: g.revision,
      grantedAtMs: g.grantedAtMs,
      endedAtMs: g.endedAtMs ?? null,
      endReason: g.endReason ?? (g.endedAtMs === undefined ? 'still held at the end of the run' : null),
    };
    marks.push({ id: 0, violations: NO_VIOLATIONS, kind: 'hold', lane, startMs: g.grantedAtMs, endMs: g.endedAtMs ?? runEndMs, label: g.token, details });
    // The log ended the hold because its lease expired: the moment the holder lost it, whatever it believed.
    if (g.endReason === 'expiry' && g.endedAtMs !== undefined) {
      marks.push({ id: 0, violations: NO_VIOLATIONS, kind: 'expiry', lane, startMs: g.endedAtMs, endMs: g.endedAtMs, label: `expired ${g.token}`, details: { ...details, what: 'the hold ended because its session lease expired' } });
    }
  }
  for (const b of artifact.history.beliefs ?? []) {
    const details = { key: b.key, token: b.token, holder: b.holder, fromMs: b.fromMs, toMs: b.toMs ?? null, what: 'canStart() said yes (ADR-12)' };
    marks.push({ id: 0, violations: NO_VIOLATIONS, kind: 'belief', lane: lanes.laneOfHolder(b.holder), startMs: b.fromMs, endMs: b.toMs ?? runEndMs, label: b.token, details });
  }
  for (const w of artifact.history.writes ?? []) {
    const details = { resource: w.resource, key: w.key, holder: w.holder, token: w.token, atMs: w.atMs, endMs: w.endMs ?? null, accepted: w.accepted };
    marks.push({ id: 0, violations: NO_VIOLATIONS, kind: w.accepted ? 'write' : 'fence-rejection', lane: w.resource, startMs: w.atMs, endMs: w.endMs ?? w.atMs, label: w.token, details });
  }
  return marks;
}
