// The file spool of unprotected grants (ADR-04, core/ports/spool.ts): an append-only file, one checksummed
// line per record (spool-line.ts), each append fsynced before it resolves, so a grant the arbiter answered
// is on disk. Everything runs one operation at a time, in call order.
//
// Limits (a caller controls how many grants there are): a record of more than maxRecordBytes and a grant
// that would leave too little room are refused with a SpoolLimitError. The arbiter spools a grant before
// it answers, so a refused append is a refused grant: at the limit the class fails closed, as every class
// does without a quorum. Room is kept for the end of every open grant, so an end is never refused for
// want of space (a grant is admitted only while size + this line + one maxRecordBytes per open grant,
// this one included, fits under maxSpoolBytes).
import { existsSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LockError } from '../../core/lock-error.js';
import type { Spool, UnprotectedRecord } from '../../core/ports/spool.js';
import { writeFileAtomically } from '../files/atomic-write.js';
import { encodeSpoolLine } from './spool-line.js';
import { type SpoolScan, openGrantIds, scanSpool } from './spool-scan.js';

/** A 256-character key and identity, with every other field, fit several times over. */
export const DEFAULT_MAX_RECORD_BYTES = 4_096;
/** About 16,000 grants with their ends: hours of an outage at a busy arbiter's open classes. */
export const DEFAULT_MAX_SPOOL_BYTES = 64 * 1024 * 1024;

export interface FileSpoolOptions {
  readonly maxRecordBytes?: number;
  readonly maxSpoolBytes?: number;
  /** Told when a read finds a torn tail or damaged lines (a code and counts, for the log). */
  readonly onDamage?: (found: { tornTailBytes: number; damagedLines: number }) => void;
}

/**
 * An append the spool refused at one of its limits: the grant it carried is not made (fail closed). A
 * LockError `unavailable`, so the holder asking is told why and may retry once the spool has shipped.
 */
export class SpoolLimitError extends LockError {
  constructor(
    readonly limit: 'record-bytes' | 'spool-bytes',
    message: string,
  ) {
    super('unavailable', message);
  }
}

export class FileSpool implements Spool {
  readonly maxRecordBytes: number;
  readonly maxSpoolBytes: number;
  /** Where truncate keeps damaged lines it removes, for a person to look at: nothing is destroyed unseen. */
  readonly damagedPath: string;
  private queue: Promise<unknown> = Promise.resolve();
  /** Undefined until the file has been read and its torn tail cut (again after a failed append). */
  private state: SpoolState | undefined;

  constructor(
    readonly path: string,
    private readonly options: FileSpoolOptions = {},
  ) {
    this.maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
    this.maxSpoolBytes = options.maxSpoolBytes ?? DEFAULT_MAX_SPOOL_BYTES;
    this.damagedPath = `${path}.damaged`;
  }

  append(record: UnprotectedRecord): Promise<void> {
    return this.serially(() => this.appendNow(record));
  }

  read(): Promise<readonly UnprotectedRecord[]> {
    return this.serially(async () => (await this.scan()).lines.map((line) => line.record));
  }

  truncate(throughId: string): Promise<void> {
    return this.serially(() => this.truncateNow(throughId));
  }

  private serially<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(operation);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async appendNow(record: UnprotectedRecord): Promise<void> {
    const line = encodeSpoolLine(record);
    if (line.length > this.maxRecordBytes) {
      throw new SpoolLimitError('record-bytes', `spool record ${record.id.slice(0, 80)} is ${line.length} bytes, over the limit of ${this.maxRecordBytes}; it was not written`);
    }
    const state = await this.recovered();
    const reserveBytes = record.kind === 'grant' ? (state.openGrants.size + 1) * this.maxRecordBytes : 0;
    if (state.sizeBytes + line.length + reserveBytes > this.maxSpoolBytes) {
      throw new SpoolLimitError('spool-bytes', `this arbiter's spool of unprotected grants holds ${state.sizeBytes} bytes and ${state.openGrants.size} open grants; a grant more would pass its limit of ${this.maxSpoolBytes} bytes (room is kept for every open grant's end), so the class fails closed until the quorum is back and the spool ships (ADR-04)`);
    }
    const created = state.sizeBytes === 0 && !existsSync(this.path);
    try {
      const handle = await open(this.path, 'a', 0o600);
      try {
        await handle.write(line);
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (created) await syncDirectory(this.path);
    } catch (error) {
      this.state = undefined; // part of the line may be there: the next operation cuts it off first
      throw error;
    }
    state.sizeBytes += line.length;
    if (record.kind === 'grant') state.openGrants.add(record.grantId);
    else state.openGrants.delete(record.grantId);
  }

  private async truncateNow(throughId: string): Promise<void> {
    const scan = await this.scan();
    const cut = scan.lines.findIndex((line) => line.record.id === throughId);
    // An id not found was truncated already (a crash between truncate and its caller's next step): nothing to do.
    if (cut < 0 && scan.damaged.length === 0) return;
    if (scan.damaged.length > 0) await appendDurably(this.damagedPath, scan.damaged.join(''));
    const remainder = scan.lines.slice(cut + 1).map((line) => line.text).join('');
    await writeFileAtomically(this.path, remainder);
    await syncDirectory(this.path);
    if (this.state !== undefined) this.state.sizeBytes = Buffer.byteLength(remainder, 'utf8');
  }

  /** Reads the file; the first time (and after a failed append) also cuts a torn tail off it. */
  private async scan(): Promise<SpoolScan> {
    return (await this.load()).scan;
  }

  private async recovered(): Promise<SpoolState> {
    return this.state ?? (await this.load()).state;
  }

  private async load(): Promise<{ scan: SpoolScan; state: SpoolState }> {
    const bytes = await readFile(this.path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return Buffer.alloc(0);
      throw error;
    });
    const scan = scanSpool(bytes);
    if (scan.tornTailBytes > 0 || scan.damaged.length > 0) this.options.onDamage?.({ tornTailBytes: scan.tornTailBytes, damagedLines: scan.damaged.length });
    if (this.state === undefined) {
      if (scan.tornTailBytes > 0) await cutTo(this.path, scan.wholeLinesBytes);
      this.state = { sizeBytes: scan.wholeLinesBytes, openGrants: openGrantIds(scan.lines.map((line) => line.record)) };
    }
    return { scan, state: this.state };
  }
}

interface SpoolState {
  sizeBytes: number;
  /** Grants whose end is not written yet: room is kept for each one's end. */
  openGrants: Set<string>;
}

/** Cuts the file to `bytes` (its whole lines), durably: the next append must not continue a torn line. */
async function cutTo(path: string, bytes: number): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.truncate(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function appendDurably(path: string, text: string): Promise<void> {
  const handle = await open(path, 'a', 0o600);
  try {
    await handle.write(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await syncDirectory(path);
}

/** fsyncs the directory holding `path`, so a file created or renamed there survives a power loss. */
async function syncDirectory(path: string): Promise<void> {
  const handle = await open(dirname(path) === '' ? '.' : dirname(path), 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
