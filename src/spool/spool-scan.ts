// Reading the spool file's bytes back (ADR-04). Appends are sequential and each is fsynced before the next
// begins, so a crash can tear only the last line: bytes after the last newline are a torn tail, dropped.
// A whole line that fails its checksum anywhere else is damage (the disk changed bytes): it is dropped
// from what is shipped but counted, so the spool's owner can say so, and kept aside by truncate.
import type { UnprotectedRecord } from '../../core/ports/spool.js';
import { decodeSpoolLine } from './spool-line.js';

export interface SpoolLine {
  readonly record: UnprotectedRecord;
  /** The line as it is in the file, newline included: truncate keeps it byte for byte. */
  readonly text: string;
}

export interface SpoolScan {
  readonly lines: readonly SpoolLine[];
  /** Whole lines that failed their checksum or shape, newline included. */
  readonly damaged: readonly string[];
  /** Bytes after the last newline: a write a crash tore. */
  readonly tornTailBytes: number;
  /** Where the last whole line ends: the length the file is cut back to before the next append. */
  readonly wholeLinesBytes: number;
}

export function scanSpool(bytes: Buffer): SpoolScan {
  const lastNewline = bytes.lastIndexOf(0x0a);
  const wholeLinesBytes = lastNewline + 1;
  const lines: SpoolLine[] = [];
  const damaged: string[] = [];
  let start = 0;
  while (start < wholeLinesBytes) {
    const end = bytes.indexOf(0x0a, start);
    const text = bytes.subarray(start, end + 1).toString('utf8');
    const record = decodeSpoolLine(text.slice(0, -1));
    if (record === undefined) damaged.push(text);
    else lines.push({ record, text });
    start = end + 1;
  }
  return { lines, damaged, tornTailBytes: bytes.length - wholeLinesBytes, wholeLinesBytes };
}

/** The grants among `records` with no end record among them: those whose end is still to be written. */
export function openGrantIds(records: readonly UnprotectedRecord[]): Set<string> {
  const open = new Set<string>();
  for (const record of records) {
    if (record.kind === 'grant') open.add(record.grantId);
    else open.delete(record.grantId);
  }
  return open;
}
