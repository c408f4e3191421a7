// The PostgreSQL harness itself (test/helpers/postgres.ts): databases from the shared server are
// separate, and a server of one's own can be stopped under its clients and started again on the
// same port with its data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { sharedPostgres, startPostgres, type PgServer } from '../helpers/postgres.js';

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

async function tables(url: string): Promise<string[]> {
  const client = await connect(url);
  try {
    const result = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    return result.rows.map((row) => row.table_name);
  } finally {
    await client.end();
  }
}

describe('sharedPostgres()', () => {
  it('gives each call its own empty database', async () => {
    const shared = await sharedPostgres();
    const [first, second] = await Promise.all([shared.createDatabase('harness'), shared.createDatabase('harness')]);
    expect(first).not.toBe(second);
    expect(new URL(first).pathname).toMatch(/^\/harness_[a-z0-9_]+$/);

    const client = await connect(first);
    try {
      await client.query('CREATE TABLE only_in_first (id integer PRIMARY KEY)');
      await client.query('INSERT INTO only_in_first VALUES (1)');
    } finally {
      await client.end();
    }
    expect(await tables(first)).toEqual(['only_in_first']);
    expect(await tables(second)).toEqual([]);
  });
});

describe('startPostgres()', () => {
  let server: PgServer;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.destroy();
  });

  it('stops (clients then fail to connect) and starts again on the same port with its data', async () => {
    const url = await server.createDatabase('restart');
    expect(new URL(url).port).toBe(String(server.port));
    const setup = await connect(url);
    await setup.query('CREATE TABLE kept (id integer PRIMARY KEY, note text)');
    await setup.query("INSERT INTO kept VALUES (1, 'before the first stop')");
    await setup.end();

    for (const round of [1, 2]) {
      // A client connected across the stop loses its connection.
      const open = await connect(url);
      // (pg emits 'error' twice: the server's 57P01, then "Connection terminated unexpectedly".)
      const lost = new Promise<Error>((resolve) => open.on('error', resolve));
      await server.stop();
      expect((await lost).message).toMatch(/terminat/i);

      await expect(connect(url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

      await server.start();
      const client = await connect(url);
      try {
        const { rows } = await client.query<{ id: number; note: string }>('SELECT id, note FROM kept ORDER BY id');
        expect(rows).toEqual([
          { id: 1, note: 'before the first stop' },
          ...(round === 2 ? [{ id: 2, note: 'after restart 1' }] : []),
        ]);
        await client.query('INSERT INTO kept VALUES ($1, $2)', [round + 1, `after restart ${round}`]);
      } finally {
        await client.end();
      }
    }
    expect(server.adminUrl).toBe(`postgres://postgres:${new URL(server.adminUrl).password}@127.0.0.1:${server.port}/postgres`);
  });

  it('start() and stop() twice in a row are no-ops', async () => {
    await server.start();
    await server.stop();
    await server.stop();
    await server.start();
    const client = await connect(server.adminUrl);
    await expect(client.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
    await client.end();
  });
});
