import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresServer, startPostgres } from '../testing/postgres-server.js';
import { PostgresFence, checkTableName, postgresFenceStatements } from './postgresql.js';

describe('the PostgreSQL reference fence: copyable text (docs/fences/postgresql.sql)', () => {
  it('is the same SQL as the module runs, statement for statement', async () => {
    const doc = await readFile(new URL('../../docs/fences/postgresql.sql', import.meta.url), 'utf8');
    const withoutComments = doc.replace(/ *--[^\n]*/g, '');
    const statements = postgresFenceStatements('lockstep_fenced');
    for (const statement of Object.values(statements)) expect(withoutComments).toContain(statement);
    expect(statements.guardedWrite).toBe('UPDATE lockstep_fenced SET value = $3, fence = $2 WHERE id = $1 AND fence < $2;');
    expect(postgresFenceStatements('lockstep_fenced', 'at-or-above').guardedWrite).toContain('AND fence <= $2;');
  });

  it('refuses a table name it would have to quote, naming the rule and an example', () => {
    expect(checkTableName('ledger.fenced')).toBe('ledger.fenced');
    expect(() => checkTableName('x; DROP TABLE y')).toThrow(/is not a plain PostgreSQL table name .*; use one such as lockstep_fenced/);
  });
});

describe('the PostgreSQL reference fence on a real server', () => {
  let server: PostgresServer | undefined;
  let client: pg.Client | undefined;
  beforeAll(async () => {
    server = await startPostgres();
    client = new pg.Client({ connectionString: server.url });
    await client.connect();
  }, 600_000);
  afterAll(async () => {
    await client?.end();
    await server?.stop();
  });

  it('accepts only tokens above the record\'s mark, one statement each, and reads the record back', async () => {
    const fence = new PostgresFence(client as pg.Client, 'lockstep_fenced');
    await fence.createTable();
    await fence.createRecord('payments/ledger-7');
    const answers = [];
    for (const [token, value] of [[281474976710661n, 'first'], [281474976710670n, 'second'], [281474976710661n, 'stale'], [281474976710670n, 'again']] as const) {
      answers.push(await fence.write('payments/ledger-7', token, value));
    }
    expect(answers).toEqual([true, true, false, false]);
    expect(await fence.read('payments/ledger-7')).toEqual({ fence: 281474976710670n, value: 'second' });
    expect(await fence.read('payments/other')).toBeUndefined();
  });

  it('keeps a mark per record: a high token on one row does not refuse another row', async () => {
    const fence = new PostgresFence(client as pg.Client, 'lockstep_fenced');
    await fence.createRecord('row-a');
    await fence.createRecord('row-b');
    expect([await fence.write('row-a', 900n, 'a'), await fence.write('row-b', 5n, 'b')]).toEqual([true, true]);
  });

  it('negative control: a check in one statement and the write in another lets a stale holder in when a write falls between them', async () => {
    const db = client as pg.Client;
    await db.query("INSERT INTO lockstep_fenced (id) VALUES ('ctw') ON CONFLICT DO NOTHING");
    const { rows } = await db.query<{ fence: string }>("SELECT fence::text AS fence FROM lockstep_fenced WHERE id = 'ctw'");
    const staleToken = 5n;
    const passesCheck = staleToken > BigInt(rows[0]?.fence ?? '0');
    await new PostgresFence(db, 'lockstep_fenced').write('ctw', 9n, 'newer'); // the newer holder writes in between
    if (passesCheck) await db.query("UPDATE lockstep_fenced SET value = 'stale', fence = $1 WHERE id = 'ctw'", [String(staleToken)]);
    expect((await new PostgresFence(db, 'lockstep_fenced').read('ctw'))?.value).toBe('stale');
  });
});
