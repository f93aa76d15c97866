// One line of the file spool (ADR-04): `<crc32, 8 hex digits> <record as JSON>\n`. The checksum covers the
// JSON's bytes, so a line a crash tore, or bytes the disk changed, fail it; a line whose checksum holds but
// whose JSON is not an UnprotectedRecord fails too. A failed line is never read as a record.
import { crc32 } from 'node:zlib';
import type { UnprotectedRecord } from '../../core/ports/spool.js';

const LINE = /^([0-9a-f]{8}) (\{.*\})$/;
const END_REASONS: ReadonlySet<string> = new Set(['release', 'expiry', 'recovery']);
const TEXT_FIELDS = ['id', 'grantId', 'arbiterId', 'key', 'namespace', 'className', 'identity', 'instance'] as const;

/** The line for `record`, newline included. */
export function encodeSpoolLine(record: UnprotectedRecord): Buffer {
  const json = JSON.stringify(record);
  return Buffer.from(`${checksumHex(json)} ${json}\n`, 'utf8');
}

/** The record a line (without its newline) holds, or undefined when the line is damaged. */
export function decodeSpoolLine(line: string): UnprotectedRecord | undefined {
  const match = LINE.exec(line);
  if (match === null || match[1] !== checksumHex(match[2] ?? '')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(match[2] ?? '');
  } catch {
    return undefined;
  }
  return isRecord(value) ? value : undefined;
}

function checksumHex(json: string): string {
  return crc32(Buffer.from(json, 'utf8')).toString(16).padStart(8, '0');
}

function isRecord(value: unknown): value is UnprotectedRecord {
  if (typeof value !== 'object' || value === null) return false;
  const fields = value as Record<string, unknown>;
  if (!TEXT_FIELDS.every((name) => typeof fields[name] === 'string')) return false;
  if (fields['kind'] !== 'grant' && fields['kind'] !== 'end') return false;
  if (typeof fields['atMs'] !== 'number' || !Number.isFinite(fields['atMs'])) return false;
  const reason = fields['endReason'];
  return reason === undefined || (typeof reason === 'string' && END_REASONS.has(reason));
}
