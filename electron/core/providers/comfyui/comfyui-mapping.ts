// A request mapped onto a ComfyUI workflow (its placeholders filled), and the engine's history
// entry mapped back to the file the request asked for. The history entry (execution.py
// task_done) is {prompt, outputs: {node_id: ui}, status: {status_str, completed, messages}},
// where ui is what the output node reported: SaveImage {images: [{filename, subfolder, type}]},
// SaveVideo/SaveWEBM {images: [...], animated: [true]} (comfy_api/latest/_ui.py PreviewVideo),
// VideoHelperSuite's VHS_VideoCombine {gifs: [{filename, subfolder, type, format, frame_rate}]}.
import { invalid } from '../../errors.js';
import { checkPlaceholders, fillTemplate, IMAGE_PLACEHOLDERS, placeholdersIn, randomSeed, WORKFLOW_PLACEHOLDERS, type PlaceholderValues, type Workflow } from '../templates/placeholders.js';
import { isObject, referenceCount } from './comfyui-checks.js';
import { executionFailure, INTERRUPTED } from './comfyui-errors.js';

export interface FillRequest {
  prompt: string;
  width: number;
  height: number;
  /** The names the engine gave the uploaded references, in order. */
  images: string[];
  video?: { seconds: number; fps: number };
  /** The field a reference count error names (image for /images/edits, input_reference for /videos). */
  imageParam: string;
}

/** How many references a workflow takes ({{image_N}}), for checking a request before uploading anything. */
export function referencesTaken(workflow: Workflow): number {
  return referenceCount(placeholdersIn(workflow));
}

/**
 * Refuses a request whose reference count is not the one the model's workflow takes. The record
 * may allow other counts (a discovered checkpoint's record offers generations and edits with up
 * to 3 references, and an owner may give it to any workflow), so this is where a generation on
 * an edit workflow, or an edit on a text-to-image one, is refused: a workflow never runs with an
 * empty {{image_N}} or with a reference left out. `hint` says how to send what is missing, where
 * the field alone does not (a generation has no image field).
 */
export function checkReferenceCount(workflow: Workflow, sent: number, param: string, hint?: (missing: number) => string): void {
  const taken = referencesTaken(workflow);
  if (sent < taken) {
    const empty = IMAGE_PLACEHOLDERS.slice(sent, taken).map((name) => `{{${name}}}`).join(', ');
    const what = `${sent === 0 ? 'none was' : `only ${sent} ${sent === 1 ? 'was' : 'were'}`} sent, so nothing fills ${empty}`;
    throw invalid(`This model's workflow takes ${plural(taken, 'reference image')}; ${what}${hint ? `: ${hint(taken - sent)}` : ''}.`, param);
  }
  if (sent > taken) {
    const takes = taken === 0 ? 'no reference image (it has no {{image_1}})' : `only ${plural(taken, 'reference image')}`;
    throw invalid(`This model's workflow takes ${takes}; ${sent} ${sent === 1 ? 'was' : 'were'} sent.`, param);
  }
}

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The workflow to send: every placeholder filled, a fresh seed each time. */
export function fillWorkflow(workflow: Workflow, request: FillRequest): Workflow {
  // A stored workflow was checked when it was put; one from before a rule changed must fail as a 400, not a 500.
  const used = checkPlaceholders(workflow, WORKFLOW_PLACEHOLDERS, 'model');
  checkReferenceCount(workflow, request.images.length, request.imageParam);
  const values: PlaceholderValues = { prompt: request.prompt, width: request.width, height: request.height, seed: randomSeed() };
  request.images.forEach((name, i) => (values[`image_${i + 1}`] = name));
  if (request.video) {
    values.seconds = request.video.seconds;
    values.fps = request.video.fps;
    values.frames = request.video.seconds * request.video.fps;
  } else {
    const videoOnly = used.filter((name) => name === 'seconds' || name === 'fps' || name === 'frames');
    if (videoOnly.length > 0) throw invalid(`This model's workflow uses {{${videoOnly[0]}}}, which an image request does not fill; the owner must fix the model.`, 'model');
  }
  return fillTemplate(workflow, values);
}

export interface OutputFile {
  filename: string;
  subfolder: string;
  type: string;
}

export type HistoryOutcome =
  | { state: 'success'; outputs: { [node: string]: unknown } }
  | { state: 'failed'; message: string };

/** How a history entry ended: its outputs, or the failure its status messages record. */
export function outcomeOf(entry: unknown): HistoryOutcome {
  const record = isObject(entry) ? entry : {};
  const outputs = isObject(record.outputs) ? record.outputs : {};
  const status = isObject(record.status) ? record.status : null;
  const messages = status && Array.isArray(status.messages) ? status.messages : [];
  for (const message of messages) {
    if (!Array.isArray(message) || !isObject(message[1])) continue;
    if (message[0] === 'execution_error') return { state: 'failed', message: executionFailure(message[1]) };
    if (message[0] === 'execution_interrupted') return { state: 'failed', message: INTERRUPTED };
  }
  if (status && status.status_str === 'error') return { state: 'failed', message: 'ComfyUI could not run the workflow.' };
  return { state: 'success', outputs };
}

const VIDEO_EXTENSIONS = /\.(mp4|m4v|mov|webm|mkv|avi|gif)$/i;

function filesOf(value: unknown): OutputFile[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (item): item is OutputFile => isObject(item) && typeof item.filename === 'string' && item.filename !== '' && (item.subfolder === undefined || typeof item.subfolder === 'string'),
  ).map((item) => ({ filename: item.filename, subfolder: item.subfolder ?? '', type: typeof item.type === 'string' ? item.type : 'output' }));
}

const isAnimated = (ui: { [key: string]: unknown }): boolean => Array.isArray(ui.animated) && ui.animated.some((flag) => flag === true);

/** The image of a finished run: a saved still first, then a preview, then an animated image. */
export function imageOutput(outputs: { [node: string]: unknown }): OutputFile | null {
  const candidates: { file: OutputFile; rank: number }[] = [];
  for (const ui of Object.values(outputs)) {
    if (!isObject(ui)) continue;
    const animated = isAnimated(ui);
    for (const file of filesOf(ui.images)) {
      if (VIDEO_EXTENSIONS.test(file.filename) && !/\.gif$/i.test(file.filename)) continue;
      candidates.push({ file, rank: (animated ? 2 : 0) + (file.type === 'output' ? 0 : 1) });
    }
  }
  candidates.sort((a, b) => a.rank - b.rank);
  return candidates[0]?.file ?? null;
}

/** The video of a finished run (VHS `gifs`, or an animated `images` entry): an .mp4 first. */
export function videoOutput(outputs: { [node: string]: unknown }): OutputFile | null {
  const candidates: OutputFile[] = [];
  for (const ui of Object.values(outputs)) {
    if (!isObject(ui)) continue;
    candidates.push(...filesOf(ui.gifs));
    if (isAnimated(ui)) candidates.push(...filesOf(ui.images));
    else candidates.push(...filesOf(ui.images).filter((file) => VIDEO_EXTENSIONS.test(file.filename)));
  }
  return candidates.find((file) => /\.(mp4|m4v)$/i.test(file.filename)) ?? candidates[0] ?? null;
}
