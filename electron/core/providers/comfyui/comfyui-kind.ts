// The comfyui provider kind: ComfyUI (default port 8188, no key), where any workflow in API
// format is a model and every discovered checkpoint gets the built-in ones.
import type { EngineKind } from '../engine-kind.js';
import { checkComfy, discoverComfy } from './comfyui-admin.js';
import { checkWorkflow } from './comfyui-checks.js';
import { ComfyUIProvider } from './comfyui-provider.js';

export const comfyuiKind: EngineKind = {
  build: (config, http, logger) => new ComfyUIProvider(config, http, logger),
  check: checkComfy,
  discover: discoverComfy,
  checkWorkflow,
};
