// Team mode's daily-token holds end even when the database refuses the settle at the moment a
// request ends (it went away under the instance): the settle is kept and written again once it
// is back, so the key's quota is not short for the rest of the day.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SharedWindows } from '../../electron/core/access/shared-windows.js';
import { DatabaseUnreachable } from '../../electron/core/store/pg-connection.js';
import { openDatabase } from '../../electron/core/store/open-database.js';
import type { Store } from '../../electron/core/store/database.js';
import { tempDir } from '../helpers/gateway.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/stub-video-provider.js';

let store: Store;
beforeAll(async () => {
  store = await openDatabase(tempDir(), await (await sharedPostgres()).createDatabase('tokens'));
});
afterAll(async () => {
  await store?.close();
});

const row = (principal: string) => store.db.selectFrom('daily_tokens').select(['used', 'held']).where('principal', '=', principal).executeTakeFirstOrThrow();

describe('a daily-token settle the database refuses', () => {
  it('is written when it is back: the hold ends, the usage counts, the quota is whole again', async () => {
    const windows = new SharedWindows(store);
    expect(await windows.holdTokens('key_a', '2026-11-26', 400, 1_000)).toEqual({ ok: true });
    const update = vi.spyOn(store.db, 'updateTable').mockImplementationOnce(() => {
      throw new DatabaseUnreachable('the database server cannot be reached');
    });
    try {
      await expect(windows.settleTokens('key_a', '2026-11-26', 400, 250)).resolves.toBeUndefined();
      expect(windows.pendingSettles).toBe(1);
      expect(await row('key_a')).toEqual({ used: 0, held: 400 });
    } finally {
      update.mockRestore();
    }
    await waitFor(async () => windows.pendingSettles === 0 || null, 5_000, 50);
    expect(await row('key_a')).toEqual({ used: 250, held: 0 });
    expect(await windows.holdTokens('key_a', '2026-11-26', 750, 1_000)).toEqual({ ok: true });
  });
});
