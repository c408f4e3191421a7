// The shapes of the ComfyUI emulator's node classes (INPUT_TYPES, RETURN_TYPES, OUTPUT_NODE,
// VALIDATE_INPUTS, IS_CHANGED as the real classes declare them) and helpers to declare V1 nodes
// (plain classes, nodes.py style) and V3 nodes (comfy_api io.ComfyNode, whose INPUT_TYPES come
// from comfy_api/latest/_io.py get_v1_info: inputs as (io_type, as_dict()), combos 'COMBO').

export type ComboOptions = (string | number)[];
/** (input_type, extra_info): input_type is a type name or, for an old-style combo, the option list. */
export type InputSpec = [string | ComboOptions, Record<string, unknown>] | [string | ComboOptions];
export interface InputTypes {
  required: Record<string, InputSpec>;
  optional?: Record<string, InputSpec>;
  hidden?: Record<string, string | [string]>;
}

export interface NodeEnv {
  checkpoints: readonly string[];
  /** sorted(files) of the input directory's top level that are images (LoadImage's list). */
  inputImages(): string[];
  /** folder_paths.exists_annotated_filepath (names like 'sub/a.png' or 'a.png [output]'). */
  annotatedExists(name: string): boolean;
  /** How CheckpointLoaderSimple's ckpt_name shows in /object_info. */
  comboForm: 'list' | 'combo';
}

export interface NodeDef {
  name: string;
  displayName: string;
  category: string;
  description: string;
  pythonModule: string;
  /** A comfy_api V3 node (io.ComfyNode): its combos are typed 'COMBO' and are not checked by validate_inputs. */
  v3: boolean;
  inputTypes(env: NodeEnv): InputTypes;
  returnTypes: string[];
  returnNames?: string[];
  outputTooltips?: string[];
  outputNode: boolean;
  experimental?: boolean;
  /** VALIDATE_INPUTS: the argument names it takes, and its answer (true or a reason). */
  validate?: { args: string[]; run(values: Record<string, unknown>, env: NodeEnv): true | string };
  /** Has IS_CHANGED (LoadImage: the file's sha256), so re-uploads invalidate its cache entry. */
  isChanged?: boolean;
  /** "UNIQUE_ID" among its hidden inputs: its node id is part of its cache signature. */
  uniqueIdHidden?: boolean;
  /** VHS MultiInput: input types accepted besides the declared one. */
  multiInput?: Record<string, string[]>;
}

export const MAX_RESOLUTION = 16384;
export const HIDDEN_V1 = { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' };
export const HIDDEN_V3: Record<string, [string]> = { prompt: ['PROMPT'], extra_pnginfo: ['EXTRA_PNGINFO'] };

export const v1 = (name: string, rest: Omit<NodeDef, 'name' | 'v3' | 'pythonModule' | 'displayName'> & { displayName?: string; pythonModule?: string }): NodeDef => ({
  name,
  v3: false,
  pythonModule: 'nodes',
  displayName: name,
  ...rest,
});
export const v3 = (name: string, module: string, rest: Omit<NodeDef, 'name' | 'v3' | 'pythonModule' | 'displayName' | 'description'> & { displayName?: string; description?: string }): NodeDef => ({
  name,
  v3: true,
  pythonModule: `comfy_extras.${module}`,
  displayName: name,
  description: '',
  ...rest,
});

export const int = (d: number, min: number, max: number, extra: Record<string, unknown> = {}): InputSpec => ['INT', { default: d, min, max, ...extra }];
