/**
 * Text-to-video: an animated scene planned from the prompt. Layers are built once
 * (tables, row colours, particle lists) and each frame only re-composites them at time t.
 */
import { fadeLevel, type FrameSource } from './frame-source.js';
import { GroundLayer } from './layer-ground.js';
import { FloatLayer } from './layer-float.js';
import { SkyLayer } from './layer-sky.js';
import { WaterLayer, type SunSpot } from './layer-water.js';
import { Rng } from '../shared/random.js';
import { planScene, type VideoScene } from './scene-plan.js';
import { fadeFrame, type YuvFrame } from './yuv-frame.js';

export interface TextClip {
  prompt: string;
  seed: number;
  fps: number;
  frames: number;
}

export class TextFrameSource implements FrameSource {
  readonly scene: VideoScene;
  private readonly sky: SkyLayer;
  private readonly ground: GroundLayer;
  private readonly water: WaterLayer | null;
  private readonly floaters: FloatLayer;
  private readonly seconds: number;

  constructor(private readonly clip: TextClip, frame: YuvFrame) {
    const { width: w, height: h } = frame;
    this.scene = planScene(clip.prompt, clip.seed);
    this.seconds = clip.frames / clip.fps;
    const rng = new Rng(clip.seed).fork('video');
    this.sky = new SkyLayer(this.scene, w, h, this.seconds, frame, rng.fork('sky'));
    this.ground = new GroundLayer(this.scene, w, h, this.seconds, frame, rng.fork('ground'));
    this.water = this.scene.water || this.scene.grid ? new WaterLayer(this.scene, frame, rng.fork('water')) : null;
    this.floaters = new FloatLayer(this.scene, w, h, rng.fork('float'));
  }

  render(index: number, frame: YuvFrame): void {
    const time = index / this.clip.fps;
    const progress = this.clip.frames > 1 ? index / (this.clip.frames - 1) : 0;
    this.sky.draw(frame, time, progress);
    this.floaters.drawBlobs(frame, time);
    this.ground.draw(frame, time);
    this.water?.draw(frame, time, this.sunSpot(frame, progress));
    this.floaters.draw(frame, time);
    // A short fade-in from black gives every clip a clean start.
    fadeFrame(frame, fadeLevel(time, this.seconds, 0.4, 0));
  }

  private sunSpot(frame: YuvFrame, progress: number): SunSpot | null {
    const c = this.scene.celestial;
    if (c === null) return null;
    return { x: (c.x + c.dx * progress) * frame.width, r: c.radius * frame.height, strength: c.kind === 'sun' ? 1 : 0.6 };
  }
}
