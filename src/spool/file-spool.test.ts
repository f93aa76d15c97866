import { appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isLockError } from '../../core/lock-error.js';
import type { UnprotectedRecord } from '../../core/ports/spool.js';
import { FileSpool, SpoolLimitError } from './file-spool.js';
import { encodeSpoolLine } from './spool-line.js';

const dir = mkdtempSync(join(tmpdir(), 'lockstep-spool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(dir, `spool-${++files}.log`);

function grant(seq: number, key = 'cache/warm-7'): UnprotectedRecord {
  const id = `arbiter-a/1/${seq}`;
  return { id, kind: 'grant', grantId: id, arbiterId: 'arbiter-a', key, namespace: 'cache', className: 'warmer', identity: 'spiffe://example.org/warmer', instance: 'pod-1', atMs: 1_780_000_000_000 + seq };
}
function end(seq: number, of: number): UnprotectedRecord {
  return { ...grant(of), id: `arbiter-a/1/${seq}`, kind: 'end', atMs: 1_780_000_000_000 + seq, endReason: 'release' };
}

describe('FileSpool', () => {
  it('reads back what it appended, in order, from a new instance too (the file is the record)', async () => {
    const path = freshPath();
    const spool = new FileSpool(path);
    await Promise.all([grant(1), grant(2), end(3, 1)].map((r) => spool.append(r)));
    expect(await spool.read()).toEqual([grant(1), grant(2), end(3, 1)]);
    expect(await new FileSpool(path).read()).toEqual([grant(1), grant(2), end(3, 1)]);
    expect(readFileSync(path, 'utf8').split('\n')[0]).toMatch(/^[0-9a-f]{8} \{"id":"arbiter-a\/1\/1"/);
  });

  it('reads an empty spool when the file does not exist yet', async () => {
    expect(await new FileSpool(freshPath()).read()).toEqual([]);
  });

  it('drops a torn last line at every length it could have been cut to, never misreading it', async () => {
    const whole = Buffer.concat([encodeSpoolLine(grant(1)), encodeSpoolLine(grant(2))]);
    const torn = encodeSpoolLine(grant(3));
    for (let cut = 0; cut < torn.length; cut += 1) {
      const path = freshPath();
      writeFileSync(path, Buffer.concat([whole, torn.subarray(0, cut)]));
      const damage: number[] = [];
      const spool = new FileSpool(path, { onDamage: (found) => damage.push(found.tornTailBytes + found.damagedLines) });
      expect(await spool.read()).toEqual([grant(1), grant(2)]);
      expect(damage).toEqual(cut === 0 ? [] : [cut]);
    }
    // The whole line (the negative control): the same bytes with the newline are a record.
    const path = freshPath();
    writeFileSync(path, Buffer.concat([whole, torn]));
    expect(await new FileSpool(path).read()).toEqual([grant(1), grant(2), grant(3)]);
  });

  it('cuts a torn tail off before its next append, so the new line is not glued to the torn one', async () => {
    const path = freshPath();
    writeFileSync(path, Buffer.concat([encodeSpoolLine(grant(1)), encodeSpoolLine(grant(2)).subarray(0, 40)]));
    const spool = new FileSpool(path);
    await spool.append(grant(3));
    expect(await new FileSpool(path).read()).toEqual([grant(1), grant(3)]);
    // Negative control: appending to the torn file without the cut loses the new record too.
    const glued = freshPath();
    writeFileSync(glued, Buffer.concat([encodeSpoolLine(grant(1)), encodeSpoolLine(grant(2)).subarray(0, 40), encodeSpoolLine(grant(3))]));
    expect(await new FileSpool(glued).read()).toEqual([grant(1)]);
  });

  it('drops a corrupted line in the middle, even one whose JSON still parses, and keeps the lines after it', async () => {
    const path = freshPath();
    const spool = new FileSpool(path);
    for (const record of [grant(1), grant(2), grant(3)]) await spool.append(record);
    const lines = readFileSync(path, 'utf8').split('\n');
    lines[1] = (lines[1] ?? '').replace('"atMs":1780000000002', '"atMs":1780000000009'); // valid JSON, a different time
    writeFileSync(path, lines.join('\n'));
    const damage: { tornTailBytes: number; damagedLines: number }[] = [];
    expect(await new FileSpool(path, { onDamage: (found) => damage.push(found) }).read()).toEqual([grant(1), grant(3)]);
    expect(damage).toEqual([{ tornTailBytes: 0, damagedLines: 1 }]);
  });

  it('refuses a line whose checksum holds but which is not a record', async () => {
    const path = freshPath();
    const notARecord = encodeSpoolLine({ ...grant(1), kind: 'hold' } as unknown as UnprotectedRecord);
    writeFileSync(path, Buffer.concat([notARecord, encodeSpoolLine(grant(2))]));
    expect(await new FileSpool(path).read()).toEqual([grant(2)]);
  });

  it('truncates through an id, keeping the records after it, and appends after the rewrite', async () => {
    const path = freshPath();
    const spool = new FileSpool(path);
    for (const record of [grant(1), grant(2), end(3, 1), grant(4)]) await spool.append(record);
    await spool.truncate(grant(2).id);
    expect(await spool.read()).toEqual([end(3, 1), grant(4)]);
    await spool.append(end(5, 4));
    expect(await new FileSpool(path).read()).toEqual([end(3, 1), grant(4), end(5, 4)]);
    await spool.truncate('arbiter-a/1/2'); // shipped and truncated already: nothing changes
    expect(await spool.read()).toEqual([end(3, 1), grant(4), end(5, 4)]);
    await spool.truncate(end(5, 4).id);
    expect(await spool.read()).toEqual([]);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('moves damaged lines aside when it truncates, so none is destroyed unseen', async () => {
    const path = freshPath();
    writeFileSync(path, Buffer.concat([encodeSpoolLine(grant(1)), Buffer.from('0badc0de {"id":"x"}\n'), encodeSpoolLine(grant(3))]));
    const spool = new FileSpool(path);
    await spool.truncate(grant(1).id);
    expect(await spool.read()).toEqual([grant(3)]);
    expect(readFileSync(spool.damagedPath, 'utf8')).toBe('0badc0de {"id":"x"}\n');
  });

  it('leaves the spool whole when a truncate dies before its rename (a temp file left behind)', async () => {
    const path = freshPath();
    const spool = new FileSpool(path);
    for (const record of [grant(1), grant(2)]) await spool.append(record);
    writeFileSync(join(dir, `.${path.split('/').pop() ?? ''}.1.dead.tmp`), encodeSpoolLine(grant(2)).subarray(0, 30));
    expect(await new FileSpool(path).read()).toEqual([grant(1), grant(2)]);
  });

  it('refuses a record over its byte limit and writes nothing', async () => {
    const path = freshPath();
    const spool = new FileSpool(path, { maxRecordBytes: 600 });
    await spool.append(grant(1));
    const error = await spool.append(grant(2, `cache/${'k'.repeat(400)}`)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpoolLimitError);
    expect((error as SpoolLimitError).limit).toBe('record-bytes');
    expect(await spool.read()).toEqual([grant(1)]);
  });

  it('refuses a grant (fail closed) when the spool is full, but keeps room for every open grant\'s end', async () => {
    const grantBytes = encodeSpoolLine(grant(1)).length;
    const recordBytes = encodeSpoolLine(end(4, 1)).length + 10;
    // Two grants with room for their two ends fit; a third grant (and room for its end) does not.
    const spool = new FileSpool(freshPath(), { maxRecordBytes: recordBytes, maxSpoolBytes: 2 * grantBytes + 2 * recordBytes + 5 });
    await spool.append(grant(1));
    await spool.append(grant(2));
    const refused = await spool.append(grant(3)).catch((e: unknown) => e);
    expect((refused as SpoolLimitError).limit).toBe('spool-bytes');
    expect(isLockError(refused, 'unavailable')).toBe(true); // the holder is refused as in any outage of a closed class
    await spool.append(end(4, 1));
    await spool.append(end(5, 2)); // the room kept for the ends of both open grants
    expect((await spool.read()).map((r) => r.id)).toEqual(['arbiter-a/1/1', 'arbiter-a/1/2', 'arbiter-a/1/4', 'arbiter-a/1/5']);
    await spool.truncate(end(5, 2).id);
    await spool.append(grant(6)); // shipped: room again
    expect((await spool.read()).map((r) => r.id)).toEqual(['arbiter-a/1/6']);
  });

  it('appends a fresh line after bytes a failed write left behind', async () => {
    const path = freshPath();
    const spool = new FileSpool(path);
    await spool.append(grant(1));
    appendFileSync(path, encodeSpoolLine(grant(2)).subarray(0, 25)); // as a crash mid-write leaves it
    await expect(new FileSpool(path).read()).resolves.toEqual([grant(1)]);
    const reopened = new FileSpool(path);
    await reopened.append(grant(3));
    expect(await new FileSpool(path).read()).toEqual([grant(1), grant(3)]);
  });
});
