import { describe, expect, it } from 'vitest';
import type { FencingToken } from '../../core/units.js';
import { runReadCommand, runWriteCommand } from './command-write.js';

const token = 281474976710661n as FencingToken;
const spec = (script: string, read = 'echo') => ({ command: ['sh', '-c', script], read, key: 'payments/ledger-7' });

describe("the owner's write command (lockstep pause-test -- <command>)", () => {
  it('gets the token, key and value, and stops at each pause point it names until told to go on', async () => {
    const seen: string[] = [];
    const answer = await runWriteCommand(
      spec('echo "pause-point checked" >&3; read -r reply <&3; echo "$LOCKSTEP_TOKEN $LOCKSTEP_KEY $LOCKSTEP_VALUE $reply"'),
      token,
      'v1',
      async (point) => void seen.push(point),
    );
    expect(seen).toEqual(['checked']);
    expect(answer).toEqual({ answer: 'accepted', detail: 'exit code 0: 281474976710661 payments/ledger-7 v1 go' });
  });

  it('reports a non-zero exit as refused and a signal as failed, with the last line it printed', async () => {
    expect(await runWriteCommand(spec('echo "refused: fence 9" >&2; exit 3'), token, 'v', async () => {})).toEqual({ answer: 'refused', detail: 'exit code 3: refused: fence 9' });
    expect((await runWriteCommand(spec('kill -9 $$'), token, 'v', async () => {})).answer).toBe('failed');
    expect((await runWriteCommand({ command: ['/no/such/program'], read: 'echo', key: 'k' }, token, 'v', async () => {})).answer).toBe('failed');
  });

  it('reads the record with the read command: what it prints is the value, nothing is none, a failure is an error', async () => {
    expect(await runReadCommand(spec('true', 'echo "  the value  "'))).toEqual({ value: 'the value' });
    expect(await runReadCommand(spec('true', 'true'))).toEqual({ value: undefined });
    await expect(runReadCommand(spec('true', 'echo oops >&2; exit 4'))).rejects.toThrow(/--read-command exited with 4: oops; it must print the record's value and exit 0/);
  });
});
