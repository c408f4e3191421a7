// A data dir path that leads to a file (the desktop app's MGW_DATA_DIR, say) is named as such.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../electron/core/store/database.js';
import { tempDir } from '../helpers/gateway.js';

describe('openStore on a path that is a file', () => {
  it.each([['is', ''], ['is inside', 'data']])('a data dir that %s a file is storage_unavailable naming the file, not EEXIST or ENOTDIR', async (_how, below) => {
    const file = join(tempDir('mgw-store-file-'), 'a-file');
    writeFileSync(file, 'in the way');
    const dataDir = below ? join(file, below) : file;
    const error = await openStore(dataDir).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'storage_unavailable', message: `Cannot create the data directory ${dataDir}: ${file} is a file, not a directory.` });
  });
});
