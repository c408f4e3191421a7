// The check of an owner's request template that the cloud kinds share, once each kind has
// checked its template's shape: known placeholders only, a prompt, reference placeholders
// numbered from {{image_1}} without gaps, and as many of them as the record allows, so that every
// reference a request may bring is sent and every placeholder can be filled.
import type { ModelRecord } from '../../../../shared/api-types.js';
import { countOr } from '../../catalog/capability-read.js';
import { invalid } from '../../errors.js';
import { checkPlaceholders, IMAGE_PLACEHOLDERS, TEMPLATE_PLACEHOLDERS, type Workflow } from './placeholders.js';

const PARAM = 'template';

/** The kind's words for where a template puts things, in its refusals. */
export interface TemplateHints {
  /** How to add a missing prompt: 'put it where the model takes its prompt ("promptText": "{{prompt}}")'. */
  prompt: string;
  /** Where the model takes its images: 'where the model takes its images'. */
  images: string;
}

/**
 * The shared rules: an image model that edits with N references (capabilities.max_reference_images,
 * default 1) uses {{image_1}}..{{image_N}}, one that does not edit uses none; a video model uses as
 * many as its record allows (default 0); only a video model uses {{seconds}}.
 */
export function checkTemplateBody(template: Workflow, record: ModelRecord, hints: TemplateHints): Workflow {
  const used = checkPlaceholders(template, TEMPLATE_PLACEHOLDERS, PARAM);
  if (!used.includes('prompt')) throw invalid(`The template has no {{prompt}}: ${hints.prompt}.`, PARAM);
  const references = referencesUsed(used);
  const caps = record.capabilities;
  if (caps.video_generation !== true && used.includes('seconds')) throw invalid('The template uses {{seconds}}, which only video models fill; set capabilities.video_generation for a video model.', PARAM);
  const allowed = referencesAllowed(record);
  // The record field that sets the count: the max, or whether an image model edits at all.
  const field = caps.video_generation === true || caps.image_edit === true ? 'capabilities.max_reference_images' : 'capabilities.image_edit';
  if (references !== allowed) throw invalid(referenceMismatch(references, allowed, field, hints), PARAM);
  return template;
}

/** The references a template takes (its highest {{image_N}}), refused when one below it is missing. */
export function referencesUsed(used: readonly string[]): number {
  const references = IMAGE_PLACEHOLDERS.reduce((highest, name, i) => (used.includes(name) ? i + 1 : highest), 0);
  IMAGE_PLACEHOLDERS.slice(0, references).forEach((name) => {
    if (!used.includes(name)) throw invalid(`The template uses {{image_${references}}} but not {{${name}}}: reference images fill {{image_1}}, {{image_2}}, ... in order.`, PARAM);
  });
  return references;
}

/** The references a request to the model may bring: a video model's max (default 0), an editing image model's (default 1), else none. */
export function referencesAllowed(record: ModelRecord): number {
  const caps = record.capabilities;
  if (caps.video_generation === true) return countOr(caps.max_reference_images, 0);
  return caps.image_edit === true ? countOr(caps.max_reference_images, 1) : 0;
}

function referenceMismatch(used: number, allowed: number, field: string, hints: TemplateHints): string {
  if (used === 0) return `The record allows ${allowed} reference image${allowed === 1 ? '' : 's'}, but the template uses no {{image_1}}, so they would be ignored; put {{image_1}}... ${hints.images}, or change ${field}.`;
  if (allowed === 0) return `The template takes reference images ({{image_1}}...), but the record allows none; set ${field} (capabilities.image_edit with max_reference_images for an image model, max_reference_images for a video model).`;
  return `The template uses ${used} reference image placeholder${used === 1 ? '' : 's'}, but the record allows ${allowed}; make them agree (${field}).`;
}
