// A PostgreSQL server that is there but cannot take the work (read-only, as a standby is) gives
// 503 storage_unavailable in gateway words, never a 500; when it takes writes again, so does
// the gateway, with nothing held.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { sharedPostgres } from '../helpers/postgres.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, postJson } from '../helpers/http.js';

let t: TestGateway;
let url: string;
beforeAll(async () => {
  url = await (await sharedPostgres()).createDatabase('readonly');
  t = await startTestGateway({ databaseUrl: url });
});
afterAll(async () => {
  await t?.close();
});

async function readOnly(on: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const name = new URL(url).pathname.slice(1);
  await client.query('set default_transaction_read_only = off'); // this session's own, to write the change
  await client.query(`alter database "${name}" set default_transaction_read_only = ${on ? 'on' : 'off'}`);
  // Sessions read the setting when they start: the pool's are ended so the next ones see it.
  await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
  await client.end();
}

describe('a read-only PostgreSQL', () => {
  it('answers 503 storage_unavailable saying so, then serves again once it takes writes', async () => {
    const key = await t.key('balance', { balanceNano: USD });
    const generate = () => postJson(`${t.baseUrl}/images/generations`, { model: 'local-image', prompt: 'a lamp', size: '256x256' }, key.token);
    await readOnly(true);
    try {
      let answer = await generate();
      // The first query after the terminated sessions may meet a dropped connection (also a 503).
      if (errorOf(answer).message.includes('cannot be reached')) answer = await generate();
      expect(answer.status, JSON.stringify(answer.body)).toBe(503);
      expect(errorOf(answer)).toMatchObject({ code: 'storage_unavailable', message: "The gateway's storage is unavailable: the database server is read-only (a standby, or set so)." });
    } finally {
      await readOnly(false);
    }
    let back = await generate();
    if (back.status === 503) back = await generate();
    expect(back.status).toBe(200);
    expect(await t.gateway.billing.activeHolds(key.accountId)).toEqual([]);
  });
});
