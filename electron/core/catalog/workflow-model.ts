// A model made from an owner's workflow in the studio (the file uploaded, no record typed): a
// record with the built-in engine's shape and default prices the owner can change, sized to what
// the workflow uses (its reference images; for a video workflow, seconds and frame rate).
import type { ModelRecord } from '../../../shared/api-types.js';
import { invalid } from '../errors.js';
import { engineImageRecord } from '../providers/engine-records.js';
import { IMAGE_PLACEHOLDERS, placeholdersIn, type JsonValue } from '../providers/templates/placeholders.js';

export type WorkflowOutput = 'image' | 'video';

/** The uploaded file's text as JSON; what is not JSON is refused naming the field. */
export function parseWorkflowText(text: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw invalid(`The workflow file is not valid JSON (${(error as Error).message}); export it from ComfyUI with "Export (API)".`, 'workflow');
  }
}

export function defaultWorkflowRecord(id: string, providerId: string, workflow: unknown, output: WorkflowOutput, created: number): ModelRecord {
  const used = typeof workflow === 'object' && workflow !== null ? placeholdersIn(workflow as JsonValue) : [];
  // The highest {{image_N}}: what the workflow check asks the record to allow (a gap is refused there).
  const references = IMAGE_PLACEHOLDERS.reduce((highest, name, i) => (used.includes(name) ? i + 1 : highest), 0);
  if (output === 'image') {
    const record = engineImageRecord({ upstreamModel: id, name: id, maxReferenceImages: references }, id, providerId, created);
    // A workflow that needs references cannot generate from text alone.
    return references > 0 ? { ...record, capabilities: { ...record.capabilities, image_generation: false, image_edit: true } } : record;
  }
  return {
    id,
    object: 'model',
    created,
    owned_by: providerId,
    tier: 'pro',
    model_type: 'video',
    pricing_mode: 'second',
    pricing: { price: 0.05, currency: 'USD', unit: 'second' },
    modalities: { input: references > 0 ? ['text', 'image'] : ['text'], output: ['video'] },
    context_window: { tokens: null, chars: 32_000 },
    usage_based_only: true,
    stream: false,
    json_mode: false,
    reasoning: false,
    tools_calling: false,
    capabilities: {
      video_generation: true,
      video_async: true,
      supported_seconds: [2, 4, 5],
      supported_sizes: ['512x512', '832x480', '480x832', '1280x720'],
      // As many as the workflow loads (at most 3, the image placeholders there are), so the check accepts it.
      max_reference_images: references,
      max_reference_image_bytes: 8_388_608,
      requires_reference_image: references > 0,
      request_types: references > 0 ? ['image-to-video'] : ['text-to-video'],
      max_task_seconds: 3_600,
      fps: 16,
    },
  };
}

