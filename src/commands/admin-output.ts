// What `lockstep admin` prints for a person (without --json): one line of the answer's kind, then its
// fields, `name: value`, an arbiter's each on a line. The JSON form is the same object, whole.
export function formatAdminAnswer(answer: object): string {
  const { kind, ...fields } = answer as { kind?: string } & Record<string, unknown>;
  const lines = [`${TITLES[kind ?? ''] ?? kind ?? 'answer'}:`];
  for (const [name, value] of Object.entries(fields)) {
    if (Array.isArray(value)) for (const item of value) lines.push(`  ${fields2(item as Record<string, unknown>)}`);
    else lines.push(`  ${name}: ${value !== null && typeof value === 'object' ? fields2(value as Record<string, unknown>) : String(value)}`);
  }
  const next = NEXT[kind ?? ''];
  if (next !== undefined) lines.push(next((fields as { requestId?: string }).requestId ?? ''));
  return lines.join('\n');
}

function fields2(record: Record<string, unknown>): string {
  return Object.entries(record).map(([name, value]) => `${name}=${String(value)}`).join(' ');
}

const TITLES: Record<string, string> = {
  status: 'arbiters',
  inspect: 'hold',
  'not-held': 'not held: nothing to release',
  'force-release-requested': 'force-release requested (nothing is released until a second operator approves)',
  'epoch-advance-requested': 'epoch advance requested (nothing changes until a second operator approves)',
  'force-released': 'force-released',
  'epoch-advanced': 'epoch advanced',
};

const NEXT: Record<string, (id: string) => string> = {
  'force-release-requested': (id) => `A second operator approves with: npx lockstep admin approve ${id} --arbiter ... (their own certificate)`,
  'epoch-advance-requested': (id) => `A second operator approves with: npx lockstep admin approve ${id} --arbiter ... (their own certificate)`,
};
