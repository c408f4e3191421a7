// The check of an owner's ComfyUI workflow when a model is put (mgw models put --workflow, the
// studio's upload): the API format, known placeholders only, a prompt, an output the gateway can
// read, and references that agree with the record. A refusal names the node and input at fault.
//
// References and the record: the one rule is that the record allows at least as many references
// as the workflow's highest {{image_N}} (an image model through image_edit and
// max_reference_images, a video model through max_reference_images), so an edit with all of them
// can reach the workflow. Nothing else about the record is required: a discovered checkpoint's
// record (generation and edits, up to 3 references) must serve as the record of an owner's
// workflow of either kind. Which requests a workflow can run is settled per request instead
// (comfyui-mapping.ts checkReferenceCount): a generation on an edit workflow, or references
// sent to one without {{image_1}}, is a 400 naming what is missing, never a run with an empty
// placeholder or references left out.
// The placeholders must be numbered from 1 without gaps: references fill them in order.
import type { ModelRecord } from '../../../../shared/api-types.js';
import { invalid } from '../../errors.js';
import { checkPlaceholders, IMAGE_PLACEHOLDERS, WORKFLOW_PLACEHOLDERS, type JsonValue, type Workflow } from '../templates/placeholders.js';
import { referencesAllowed } from '../templates/template-check.js';

/** Core output nodes whose files the gateway reads as an image (their history entry's `images`). */
export const IMAGE_OUTPUT_NODES = ['SaveImage', 'PreviewImage', 'SaveAnimatedWEBP', 'SaveAnimatedPNG'] as const;
/** Output nodes whose file is a video: core SaveVideo/SaveWEBM (`images` + `animated`), VideoHelperSuite (`gifs`). */
export const VIDEO_OUTPUT_NODES = ['SaveVideo', 'SaveWEBM', 'VHS_VideoCombine'] as const;
/**
 * Custom image output nodes, known by name. ComfyUI marks output nodes itself (/object_info's
 * output_node), but a model is put without asking the engine (it may be off), so a custom node
 * ("Image Save", VHS_SaveImage, ...) is taken by the words custom nodes name their outputs with.
 * The adapter reads the image from whichever node's `images` in /history holds it.
 */
const NAMED_OUTPUT = /save|preview/i;
/** Named like an output but saving something other than an image: never an image model's output. */
const NOT_AN_IMAGE = /audio|latent|video|webm|text|string|mesh|glb|model|checkpoint|clip|vae|lora|^PreviewAny$/i;
/** Sends its images over the event stream only and reports nothing in /history, where the gateway reads outputs. */
const STREAM_ONLY_OUTPUT = 'SaveImageWebsocket';

const VIDEO_PLACEHOLDERS = ['seconds', 'fps', 'frames'];
const PARAM = 'workflow';

export type WorkflowNode = { [key: string]: JsonValue } & {
  class_type: string;
  inputs: { [key: string]: JsonValue };
};

export const isObject = (value: unknown): value is { [key: string]: JsonValue } => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The nodes of a workflow already checked (or built in), by id. */
export function nodesOf(workflow: Workflow): [string, WorkflowNode][] {
  const nodes: [string, WorkflowNode][] = [];
  for (const [id, node] of Object.entries(workflow)) {
    if (isObject(node) && typeof node.class_type === 'string' && isObject(node.inputs)) nodes.push([id, node as WorkflowNode]);
  }
  return nodes;
}

/** How many references a workflow takes: the highest {{image_N}} it uses. */
export function referenceCount(used: readonly string[]): number {
  let count = 0;
  IMAGE_PLACEHOLDERS.forEach((name, i) => {
    if (used.includes(name)) count = i + 1;
  });
  return count;
}

export const isVideoRecord = (record: ModelRecord): boolean => record.capabilities.video_generation === true;

export function checkWorkflow(workflow: unknown, record: ModelRecord): Workflow {
  if (!isObject(workflow)) throw invalid('The workflow must be a JSON object of nodes keyed by node id: a ComfyUI workflow saved with "Export (API)".', PARAM);
  if (Array.isArray(workflow.nodes) && Array.isArray(workflow.links)) {
    throw invalid('The workflow is in ComfyUI\u2019s UI format (nodes and links); save it with "Export (API)" instead.', PARAM);
  }
  const ids = Object.keys(workflow);
  if (ids.length === 0) throw invalid('The workflow has no nodes.', PARAM);
  for (const id of ids) checkNode(workflow, id);
  const used = checkPlaceholders(workflow, WORKFLOW_PLACEHOLDERS, PARAM);
  if (!used.includes('prompt')) throw invalid('The workflow has no {{prompt}}: put it as the text of the prompt node (a CLIPTextEncode "text" input, for example).', PARAM);
  const video = isVideoRecord(record);
  checkOutputs(workflow, video);
  const references = referenceCount(used);
  for (let i = 0; i < references; i++) {
    if (!used.includes(IMAGE_PLACEHOLDERS[i]!)) {
      throw invalid(`The workflow uses {{image_${references}}} but not {{${IMAGE_PLACEHOLDERS[i]}}}: reference images fill {{image_1}}, {{image_2}}, ... in order.`, PARAM);
    }
  }
  if (!video) checkNoVideoPlaceholders(used);
  checkReferencesAllowed(record, references);
  return workflow;
}

function checkNode(workflow: { [key: string]: JsonValue }, id: string): void {
  const node = workflow[id];
  if (!isObject(node)) throw invalid(`Node ${id} of the workflow is not an object with class_type and inputs.`, PARAM);
  if (typeof node.class_type !== 'string' || node.class_type.trim() === '') throw invalid(`Node ${id} of the workflow has no class_type.`, PARAM);
  if (!isObject(node.inputs)) throw invalid(`Node ${id} (${node.class_type}) has no inputs object.`, PARAM);
  for (const [name, value] of Object.entries(node.inputs)) {
    // A link is [source node id, output index]; one to a node that is not there fails at the engine.
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'number') {
      if (!isObject(workflow[value[0]])) throw invalid(`Node ${id} (${node.class_type}) input "${name}" is linked to node ${value[0]}, which is not in the workflow.`, PARAM);
    }
  }
}

function checkOutputs(workflow: Workflow, video: boolean): void {
  const classes = nodesOf(workflow).map(([, node]) => node.class_type);
  if (video) {
    if (classes.some((name) => (VIDEO_OUTPUT_NODES as readonly string[]).includes(name))) return;
    throw invalid(`The workflow has no output node the gateway can read for a video model; add one of ${VIDEO_OUTPUT_NODES.join(', ')}.`, PARAM);
  }
  if (classes.some(isImageOutput)) return;
  if (classes.includes(STREAM_ONLY_OUTPUT)) {
    throw invalid(`The workflow's only output is ${STREAM_ONLY_OUTPUT}, which sends its image over the websocket and leaves nothing in ComfyUI's history, where the gateway reads the result; use SaveImage or PreviewImage instead.`, PARAM);
  }
  throw invalid(`The workflow has no output node the gateway can read for an image model; add one of ${IMAGE_OUTPUT_NODES.join(', ')} (or a custom output node with Save or Preview in its class name).`, PARAM);
}

/** A node class an image model may take its image from: a core one, or a custom one by its name. */
export function isImageOutput(classType: string): boolean {
  if ((IMAGE_OUTPUT_NODES as readonly string[]).includes(classType)) return true;
  if (classType === STREAM_ONLY_OUTPUT || (VIDEO_OUTPUT_NODES as readonly string[]).includes(classType)) return false;
  return NAMED_OUTPUT.test(classType) && !NOT_AN_IMAGE.test(classType);
}

/** {{seconds}}, {{fps}} and {{frames}} only have a value in a video request. */
function checkNoVideoPlaceholders(used: string[]): void {
  const videoOnly = used.filter((name) => VIDEO_PLACEHOLDERS.includes(name));
  if (videoOnly.length > 0) {
    throw invalid(`The workflow uses ${videoOnly.map((n) => `{{${n}}}`).join(', ')}, which only video models fill; set capabilities.video_generation for a video model.`, PARAM);
  }
}

/** The one rule of the record (see the top): it allows at least the references the workflow takes. */
function checkReferencesAllowed(record: ModelRecord, references: number): void {
  const allowed = referencesAllowed(record);
  if (allowed >= references) return;
  const takes = `The workflow takes ${plural(references, 'reference image')} ({{image_1}}${references > 1 ? `..{{image_${references}}}` : ''})`;
  if (allowed === 0 && !isVideoRecord(record)) {
    throw invalid(`${takes}, but the record allows none; set capabilities.image_edit to true and max_reference_images to at least ${references}.`, PARAM);
  }
  throw invalid(`${takes}, but the record allows ${allowed}; set capabilities.max_reference_images to at least ${references}.`, PARAM);
}

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
