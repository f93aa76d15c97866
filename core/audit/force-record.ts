// Reads the /sys/force record a force-release writes in its txn (ADR-20; core/arbiter/admin.ts writes it
// with records.ts formatForceRecord). Defensive like every reader of shared state: a record that does not
// parse gives an audit event without the people and reason, never a guess.
import type { ForceRecord } from '../arbiter/records.js';

const TEXT_FIELDS = ['key', 'token', 'holder', 'requester', 'approver', 'reason'] as const;

export function parseForceRecord(text: string): ForceRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const fields = value as Record<string, unknown>;
  if (!TEXT_FIELDS.every((name) => typeof fields[name] === 'string')) return undefined;
  const enforcement = fields['enforcement'];
  if (enforcement !== 'fenced' && enforcement !== 'advisory') return undefined;
  const field = (name: (typeof TEXT_FIELDS)[number]): string => fields[name] as string;
  return { key: field('key'), token: field('token'), holder: field('holder'), requester: field('requester'), approver: field('approver'), reason: field('reason'), enforcement };
}
