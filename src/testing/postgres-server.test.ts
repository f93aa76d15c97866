import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresServer, startPostgres } from './postgres-server.js';

describe('a throwaway PostgreSQL server for tests', () => {
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  }, 600_000); // may install postgresql-15 with apt-get on a fresh machine
  afterAll(async () => server?.stop());

  it('listens on a loopback port and runs SQL, as a user other than root', async () => {
    expect(server?.url).toMatch(/^postgresql:\/\/lockstep@127\.0\.0\.1:\d+\/postgres$/);
    const client = new pg.Client({ connectionString: server?.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ one: number; superuser: string }>("SELECT 1 AS one, current_setting('is_superuser') AS superuser");
      expect(rows).toEqual([{ one: 1, superuser: 'on' }]);
    } finally {
      await client.end();
    }
  });

  it('is gone after stop, its port refusing connections', async () => {
    const url = server?.url as string;
    await server?.stop();
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    await expect(client.connect()).rejects.toThrow(/ECONNREFUSED/);
  });
});
