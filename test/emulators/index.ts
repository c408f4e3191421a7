// Loopback fake upstreams (OpenAI-compatible, fal-style queue, Replicate, the Gemini API with
// Veo, Runway) and local engines (ComfyUI, AUTOMATIC1111/Forge, the stable-diffusion.cpp server)
// with fault injection, for integration tests and benchmarks of the gateway. Real node:http
// servers on 127.0.0.1, free port. Only openai and fal also run in a process of their own (process.ts).
export type { Emulator, Fault, FaultRoute, RecordedRequest, UploadedFile } from './types.js';
export { startOpenAIEmulator, OPENAI_ROUTES, type OpenAIEmulator, type OpenAIEmulatorOptions } from './openai-emulator.js';
export { startFalEmulator, FAL_ROUTES, type FalEmulator, type FalEmulatorOptions } from './fal-emulator.js';
export { startReplicateEmulator, REPLICATE_ROUTES, type ReplicateEmulator, type ReplicateEmulatorOptions, type StoredFile } from './replicate-emulator.js';
export { ReplicatePrediction, type ReplicateBehaviour, type ReplicateStatus } from './replicate-predictions.js';
export { startGeminiEmulator, GEMINI_ROUTES, type GeminiEmulator, type GeminiEmulatorOptions, type EmulatedModel, type ImageRefusal, type VeoOutcome } from './gemini-emulator.js';
export { VeoOperation } from './gemini-veo.js';
export { startRunwayEmulator, RUNWAY_ROUTES, RUNWAY_CDN_ROUTES, type RunwayEmulator, type RunwayEmulatorOptions } from './runway-emulator.js';
export { RunwayTask, type RunwayBehaviour, type RunwayEnd, type RunwayStatus, type RunwayStep } from './runway-tasks.js';
export { VideoTask, type VideoBehaviour, type VideoError, type VideoStatus, type InputReference } from './openai-videos.js';
export type { ImageSettings } from './openai-images.js';
export { FalJob, contentPolicyFailure, type FalBehaviour, type FalFailure, type FalKind, type FalStatus } from './fal-queue.js';
export { encodePng, crc32 } from './png.js';
export { setChunkPause } from './http-kit.js';
export { inspectPng, type PngInfo } from './png-inspect.js';
export { tinyMp4 } from './mp4.js';
export { playableMp4, type PlayableMp4Options } from './mp4.js';
export { validateInput, schemaFor, type FalValidationError } from './fal-schemas.js';
export { startEmulatorProcess, type RemoteEmulator, type RemoteRequest, type ChildSettings, type EmulatorKind } from './process.js';
export { startComfyUIEmulator, type ComfyUIEmulator, type ComfyUIEmulatorOptions } from './comfyui-emulator.js';
export { startA1111Emulator, type A1111Emulator, type A1111EmulatorOptions } from './a1111-emulator.js';
export { startSdcppEmulator, SDCPP_ROUTES, type SdcppEmulator, type SdcppEmulatorOptions } from './sdcpp-emulator.js';
export { writeMjpegAvi } from './avi-mjpeg.js';
