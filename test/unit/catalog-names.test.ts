// Names that enter the catalog from any door (mgw, discovery, the core API) carry no line breaks
// or terminal escapes: they are joined into upstream URLs and shown in rows.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../shared/api-types.js';
import { createGateway, type Gateway } from '../../electron/core/gateway.js';
import { LOCAL_IMAGE_MODELS } from '../../electron/core/providers/local/local-models.js';
import { tempDir } from '../helpers/gateway.js';

let dataDir: string;
let gateway: Gateway;
beforeAll(async () => {
  dataDir = tempDir('mgw-catalog-names-');
  gateway = await createGateway({ dataDir });
});
afterAll(async () => {
  await gateway.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('catalog.put names', () => {
  it.each(['fal-ai/flux\n/dev', 'model\u001b[31m', 'tab\there'])('refuses the upstream model %j as one with a control character, and adds nothing', async (upstreamModel) => {
    const record = { ...(LOCAL_IMAGE_MODELS[0] as ModelRecord), id: 'named-model' };
    const error = await gateway.catalog.put({ record, providerId: 'local', upstreamModel }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid_request', param: 'upstream_model' });
    expect((error as Error).message).toBe(`The upstream model ${JSON.stringify(upstreamModel)} contains a line break or control character.`);
    expect(await gateway.catalog.find('named-model')).toBeUndefined();
  });
});
