// What a video task's engine run takes from its model beyond the request, kept on the task as it
// was at creation: the workflow (or template) and the frame rate.
import type { ModelRecord } from '../../../shared/api-types.js';
import type { ModelRoute } from '../catalog/model-routes.js';
import type { Workflow } from '../providers/templates/placeholders.js';

export const DEFAULT_FPS = 16;

export interface EngineOptions {
  workflow: Workflow | null;
  fps: number;
}

export function engineOptionsOf(record: ModelRecord, route: ModelRoute): EngineOptions {
  const fps = record.capabilities.fps;
  return { workflow: route.workflow, fps: typeof fps === 'number' && Number.isInteger(fps) && fps > 0 && fps <= 120 ? fps : DEFAULT_FPS };
}

/** The stored options; a task from before they were stored (or a damaged value) gets the defaults. */
export function readEngineOptions(json: string | null): EngineOptions {
  if (json === null) return { workflow: null, fps: DEFAULT_FPS };
  try {
    const parsed = JSON.parse(json) as Partial<EngineOptions>;
    return { workflow: parsed.workflow ?? null, fps: typeof parsed.fps === 'number' ? parsed.fps : DEFAULT_FPS };
  } catch {
    return { workflow: null, fps: DEFAULT_FPS };
  }
}
