import { describe, expect, it } from 'vitest';
import { checkDocuments } from './check.js';
import { parseDocuments } from './documents.js';
import { advisorySpec, fencedSpec, lockClassDocument, yamlFile } from './fixtures.js';
import { riskRegister, WAIVER_WARNING_DAYS } from './risk-register.js';

const TODAY = '2026-12-06';

function classesOf(documents: Record<string, unknown>[], skipWaiverExpiry: boolean) {
  return checkDocuments(parseDocuments(yamlFile(documents), 'classes.yaml').documents, { today: TODAY, skipWaiverExpiry }).classes;
}

const advisory = (name: string, waiverExpires: string) => lockClassDocument({ ...advisorySpec, waiverExpires }, { name, namespace: 'payments' });

describe('the risk register (ADR-01)', () => {
  const documents = [advisory('far', '2099-12-31'), advisory('last-day', TODAY), advisory('passed', '2026-12-05'), advisory('in-30', '2027-01-05'), advisory('in-31', '2027-01-06'), lockClassDocument(fencedSpec, { name: 'fenced', namespace: 'payments' })];

  it('lists every advisory class, soonest expiry first, with days left and the 30-day warning at its edge', () => {
    const register = riskRegister(classesOf(documents, true), TODAY);
    expect(register.entries.map((e) => [e.name, e.daysLeft, e.status])).toEqual([
      ['passed', -1, 'expired'],
      ['last-day', 0, 'expiring'],
      ['in-30', WAIVER_WARNING_DAYS, 'expiring'],
      ['in-31', WAIVER_WARNING_DAYS + 1, 'current'],
      ['far', 26_688, 'current'],
    ]);
    expect(register.entries[0]).toMatchObject({ purpose: 'correctness', riskOwner: 'team-payments', waiverExpires: '2026-12-05' });
    expect([register.expired, register.expiring]).toEqual([1, 2]);
  });

  it('needs the expiry rule skipped to list a passed waiver: class check drops that class (negative control)', () => {
    const checked = classesOf(documents, false).map((c) => c.name);
    expect(checked).not.toContain('passed');
    expect(riskRegister(classesOf(documents, false), TODAY).expired).toBe(0);
  });
});
