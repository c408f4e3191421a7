// The video nodes the ComfyUI emulator knows: comfy_extras/nodes_hunyuan.py
// (EmptyHunyuanLatentVideo), nodes_lt.py (EmptyLTXVLatentVideo), nodes_video.py (SaveWEBM,
// SaveVideo, CreateVideo: V3 nodes) and Kosinkadink/ComfyUI-VideoHelperSuite
// videohelpersuite/nodes.py (VHS_VideoCombine, with the formats of its video_formats/*.json).
import { HIDDEN_V3, MAX_RESOLUTION, int, v1, v3, type NodeDef } from './comfyui-node-types.js';

/** VHS formats: base video_formats/*.json (gifski skipped: no gifski binary), with what the emulator writes. */
export const VHS_FORMATS: Record<string, { extension: string; kind: 'mp4' | 'webm' | 'gif' | 'webp' | 'other' }> = {
  'image/gif': { extension: 'gif', kind: 'gif' },
  'image/webp': { extension: 'webp', kind: 'webp' },
  'video/16bit-png': { extension: 'png', kind: 'other' },
  'video/8bit-png': { extension: 'png', kind: 'other' },
  'video/ProRes': { extension: 'mov', kind: 'other' },
  'video/av1-webm': { extension: 'webm', kind: 'webm' },
  'video/ffmpeg-gif': { extension: 'gif', kind: 'gif' },
  'video/ffv1-mkv': { extension: 'mkv', kind: 'other' },
  'video/h264-mp4': { extension: 'mp4', kind: 'mp4' },
  'video/h265-mp4': { extension: 'mp4', kind: 'mp4' },
  'video/nvenc_av1-mp4': { extension: 'mp4', kind: 'mp4' },
  'video/nvenc_h264-mp4': { extension: 'mp4', kind: 'mp4' },
  'video/nvenc_hevc-mp4': { extension: 'mp4', kind: 'mp4' },
  'video/webm': { extension: 'webm', kind: 'webm' },
};
const CRF = (d: number) => ['crf', 'INT', { default: d, min: 0, max: 100, step: 1 }];
const META = [['save_metadata', 'BOOLEAN', { default: true }], ['trim_to_audio', 'BOOLEAN', { default: false }]];
const VHS_WIDGETS: Record<string, unknown[]> = {
  'video/h264-mp4': [['pix_fmt', ['yuv420p', 'yuv420p10le']], CRF(19), ...META],
  'video/webm': [['pix_fmt', ['yuv420p', 'yuva420p']], CRF(20), ...META],
  'image/webp': [['lossless', 'BOOLEAN', { default: true }]],
};

export const VIDEO_NODE_DEFS: NodeDef[] = [
  v1('EmptyHunyuanLatentVideo', {
    pythonModule: 'comfy_extras.nodes_hunyuan', category: 'latent/video', description: '',
    inputTypes: () => ({
      required: { width: int(848, 16, MAX_RESOLUTION, { step: 16 }), height: int(480, 16, MAX_RESOLUTION, { step: 16 }), length: int(25, 1, MAX_RESOLUTION, { step: 4 }), batch_size: int(1, 1, 4096) },
    }),
    returnTypes: ['LATENT'], outputNode: false,
  }),
  v3('EmptyLTXVLatentVideo', 'nodes_lt', {
    category: 'latent/video/ltxv',
    inputTypes: () => ({
      required: { width: int(768, 64, MAX_RESOLUTION, { step: 32 }), height: int(512, 64, MAX_RESOLUTION, { step: 32 }), length: int(97, 1, MAX_RESOLUTION, { step: 8 }), batch_size: int(1, 1, 4096) },
    }),
    returnTypes: ['LATENT'], outputNode: false,
  }),
  v3('SaveWEBM', 'nodes_video', {
    category: 'image/video', experimental: true,
    inputTypes: () => ({
      required: {
        images: ['IMAGE', {}],
        filename_prefix: ['STRING', { default: 'ComfyUI', multiline: false }],
        codec: ['COMBO', { multiselect: false, options: ['vp9', 'av1'] }],
        fps: ['FLOAT', { default: 24.0, min: 0.01, max: 1000.0, step: 0.01 }],
        crf: ['FLOAT', { tooltip: 'Higher crf means lower quality with a smaller file size, lower crf means higher quality higher filesize.', default: 32.0, min: 0, max: 63.0, step: 1 }],
      },
      hidden: HIDDEN_V3,
    }),
    returnTypes: [], outputNode: true,
  }),
  v3('SaveVideo', 'nodes_video', {
    displayName: 'Save Video', category: 'image/video', description: 'Saves the input images to your ComfyUI output directory.',
    inputTypes: () => ({
      required: {
        video: ['VIDEO', { tooltip: 'The video to save.' }],
        filename_prefix: ['STRING', { tooltip: 'The prefix for the file to save. This may include formatting information such as %date:yyyy-MM-dd% or %Empty Latent Image.width% to include values from nodes.', default: 'video/ComfyUI', multiline: false }],
        format: ['COMBO', { tooltip: 'The format to save the video as.', default: 'auto', multiselect: false, options: ['auto', 'mp4'] }],
        codec: ['COMBO', { tooltip: 'The codec to use for the video.', default: 'auto', multiselect: false, options: ['auto', 'h264'] }],
      },
      hidden: HIDDEN_V3,
    }),
    returnTypes: [], outputNode: true,
  }),
  v3('CreateVideo', 'nodes_video', {
    displayName: 'Create Video', category: 'image/video', description: 'Create a video from images.',
    inputTypes: () => ({
      required: { images: ['IMAGE', { tooltip: 'The images to create a video from.' }], fps: ['FLOAT', { default: 30.0, min: 1.0, max: 120.0, step: 1.0 }] },
      optional: { audio: ['AUDIO', { tooltip: 'The audio to add to the video.' }] },
    }),
    returnTypes: ['VIDEO'], outputNode: false,
  }),
  v1('VHS_VideoCombine', {
    displayName: 'Video Combine 🎥🅥🅗🅢', pythonModule: 'custom_nodes.ComfyUI-VideoHelperSuite', category: 'Video Helper Suite 🎥🅥🅗🅢', description: '',
    inputTypes: () => ({
      required: {
        images: ['IMAGE'],
        frame_rate: ['FLOAT', { default: 8, min: 1, step: 1 }],
        loop_count: ['INT', { default: 0, min: 0, max: 100, step: 1 }],
        filename_prefix: ['STRING', { default: 'AnimateDiff' }],
        format: [Object.keys(VHS_FORMATS), { formats: VHS_WIDGETS }],
        pingpong: ['BOOLEAN', { default: false }],
        save_output: ['BOOLEAN', { default: true }],
      },
      optional: { audio: ['AUDIO'], meta_batch: ['VHS_BatchManager'], vae: ['VAE'] },
      hidden: { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO', unique_id: 'UNIQUE_ID' },
    }),
    returnTypes: ['VHS_FILENAMES'], returnNames: ['Filenames'], outputNode: true, uniqueIdHidden: true,
    multiInput: { images: ['IMAGE', 'LATENT'], frame_rate: ['FLOAT', 'INT'] },
  }),
];
