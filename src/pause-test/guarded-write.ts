// The guarded write under test, as plain data (it crosses to the first holder's process) and as the
// code that runs it: a reference fence (PostgreSQL, the file register) or the owner's own command. The
// first holder and the second run the very same write; only the first is frozen inside it.
import pg from 'pg';
import { type FenceMode, describeFenceMode } from '../../core/fence/index.js';
import type { ResourceState, WriteAnswer } from '../../core/pause-test/index.js';
import type { FencingToken } from '../../core/units.js';
import { FileRegister } from '../fences/file-register.js';
import { PostgresFence } from '../fences/postgresql.js';
import { type CommandWriteSpec, runReadCommand, runWriteCommand } from './command-write.js';

export type WriteSpec =
  | { readonly kind: 'postgres'; readonly url: string; readonly table: string; readonly record: string; readonly mode: FenceMode }
  | { readonly kind: 'file'; readonly dir: string; readonly mode: FenceMode }
  | ({ readonly kind: 'command' } & CommandWriteSpec);

export interface GuardedWrite {
  /** The write of `value` with `token`; `pause` is awaited at each pause point inside it (before and after are the caller's). */
  write(token: FencingToken, value: string, pause: (point: string) => Promise<void>): Promise<WriteAnswer>;
  read(): Promise<ResourceState>;
  close(): Promise<void>;
}

export function describeWrite(spec: WriteSpec): string {
  switch (spec.kind) {
    case 'postgres':
      return `PostgreSQL reference fence, table ${spec.table} record ${JSON.stringify(spec.record)}, one UPDATE with ${describeFenceMode(spec.mode)} (docs/fences/postgresql.sql)`;
    case 'file':
      return `file register ${spec.dir}, ${describeFenceMode(spec.mode)} (src/fences/file-register.ts)`;
    case 'command':
      return `the command ${JSON.stringify(spec.command.join(' '))}, read back by ${JSON.stringify(spec.read)}`;
  }
}

/** Hides the password of a connection URL, for everything the kit prints or writes. */
export function redactUrl(url: string): string {
  return url.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/@\s]+):[^@\s]*@/gi, '$1:***@');
}

export async function openGuardedWrite(spec: WriteSpec): Promise<GuardedWrite> {
  switch (spec.kind) {
    case 'postgres':
      return openPostgres(spec);
    case 'file': {
      const register = new FileRegister(spec.dir, spec.mode);
      return {
        write: async (token, value, pause) => ((await register.write(token, value, pause)) ? { answer: 'accepted' } : { answer: 'refused' }),
        read: async () => {
          const current = await register.read();
          return current === undefined ? { value: undefined } : { value: current.value, detail: `version ${current.token}` };
        },
        close: async () => {},
      };
    }
    case 'command':
      return { write: (token, value, pause) => runWriteCommand(spec, token, value, pause), read: () => runReadCommand(spec), close: async () => {} };
  }
}

async function openPostgres(spec: Extract<WriteSpec, { kind: 'postgres' }>): Promise<GuardedWrite> {
  const client = new pg.Client({ connectionString: spec.url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined); // a dropped connection shows as a failed query
  await client.connect();
  const fence = new PostgresFence(client, spec.table, spec.mode);
  return {
    write: async (token, value) => {
      try {
        return (await fence.write(spec.record, token, value)) ? { answer: 'accepted', detail: '1 row updated' } : { answer: 'refused', detail: '0 rows updated' };
      } catch (error) {
        return { answer: 'failed', detail: error instanceof Error ? error.message : String(error) };
      }
    },
    read: async () => {
      const record = await fence.read(spec.record);
      return record === undefined ? { value: undefined, detail: 'no such record' } : { value: record.value ?? undefined, detail: `fence ${record.fence}` };
    },
    close: () => client.end(),
  };
}

/** Before the first trial: the record exists (PostgreSQL: the INSERT of docs/fences/postgresql.sql), so the first write has a row to update. */
export async function prepareRecord(spec: WriteSpec): Promise<void> {
  if (spec.kind !== 'postgres') return;
  const client = new pg.Client({ connectionString: spec.url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await new PostgresFence(client, spec.table, spec.mode).createRecord(spec.record);
  } finally {
    await client.end();
  }
}
