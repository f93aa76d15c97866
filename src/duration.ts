// Durations on the command line: `500ms`, `30s`, `2m`, `1h`, or a bare number of seconds.
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string, flag: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (match === null) {
    throw new Error(`${flag} ${JSON.stringify(text)} is not a duration; write it like 500ms, 30s, 2m or 1h`);
  }
  const [, amount = '0', unit = 's'] = match;
  return Number(amount) * (UNIT_MS[unit] ?? 1000);
}
