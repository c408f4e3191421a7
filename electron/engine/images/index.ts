/** Built-in offline image engine: deterministic prompt-driven generation and sharp-based editing. */
export { editImage, MAX_REFERENCE_IMAGES } from './edit.js';
export { parseEditPrompt } from './edit-parse.js';
export type { ComposeMode, EditOp, EditPlan } from './edit-parse.js';
export { generateImage } from './generate.js';
export { EDIT_MAX_SIDE, EngineInputError, GENERATE_MAX_SIDE, GENERATE_MIN_SIDE } from './types.js';
export type { EditImageInput, EditResult, EngineImage, GenerateImageInput } from './types.js';
