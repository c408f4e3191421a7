// A test client for the ComfyUI emulator, used the way a real ComfyUI client is: a `ws` socket on
// /ws?clientId= collecting JSON events and binary frames, plain fetch for the HTTP routes, and
// the API-format graphs the tests queue (text to image, edit from an upload, video outputs).
import sharp from 'sharp';
import WebSocket from 'ws';

export type Msg = { type: string; data: Record<string, any> };
export type Graph = Record<string, any>;

export class WsClient {
  readonly messages: Msg[] = [];
  readonly binary: Buffer[] = [];
  closed = false;
  private waiters: { pred: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (raw: Buffer, isBinary: boolean) => {
      if (isBinary) return void this.binary.push(raw);
      const msg = JSON.parse(raw.toString()) as Msg;
      this.messages.push(msg);
      this.waiters = this.waiters.filter((w) => (w.pred(msg) ? (w.resolve(msg), false) : true));
    });
    ws.on('close', () => (this.closed = true));
  }
  static open(origin: string, clientId: string): Promise<WsClient> {
    const ws = new WebSocket(`${origin.replace('http', 'ws')}/ws?clientId=${clientId}`);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new WsClient(ws)));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
  }
  waitFor(pred: (m: Msg) => boolean): Promise<Msg> {
    const seen = this.messages.find(pred);
    return seen ? Promise.resolve(seen) : new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }
  /** Until the final {type: 'executing', data: {node: null}} of that prompt. */
  done(promptId: string): Promise<Msg> {
    return this.waitFor((m) => m.type === 'executing' && m.data.node === null && m.data.prompt_id === promptId);
  }
  /** Until the server closed the socket (or it was closed). */
  gone(): Promise<void> {
    return new Promise((resolve) => (this.closed ? resolve() : this.ws.once('close', () => resolve())));
  }
  close(): void {
    this.ws.close();
  }
}

export const CKPT = 'v1-5-pruned-emaonly-fp16.safetensors';

export function textToImage(options: { seed?: number; steps?: number; width?: number; height?: number } = {}): Graph {
  return {
    '3': { class_type: 'KSampler', inputs: { seed: options.seed ?? 42, steps: options.steps ?? 4, cfg: 7, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['5', 0] } },
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: CKPT } },
    '5': { class_type: 'EmptyLatentImage', inputs: { width: options.width ?? 320, height: options.height ?? 192, batch_size: 1 } },
    '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a lighthouse at dusk', clip: ['4', 1] } },
    '7': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry', clip: ['4', 1] } },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
    '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'ComfyUI', images: ['8', 0] } },
  };
}

/** LoadImage -> VAEEncode -> KSampler (denoise 0.6) -> VAEDecode -> SaveImage. */
export function editGraph(image: string): Graph {
  const graph = textToImage({ seed: 7 });
  delete graph['5'];
  graph['10'] = { class_type: 'LoadImage', inputs: { image } };
  graph['11'] = { class_type: 'VAEEncode', inputs: { pixels: ['10', 0], vae: ['4', 2] } };
  graph['3'].inputs.latent_image = ['11', 0];
  graph['3'].inputs.denoise = 0.6;
  return graph;
}

/** A 320x192, 9-frame EmptyHunyuanLatentVideo sampled and decoded as node 8, plus `output` nodes. */
export function videoGraph(output: Graph): Graph {
  const graph = textToImage();
  graph['5'] = { class_type: 'EmptyHunyuanLatentVideo', inputs: { width: 320, height: 192, length: 9, batch_size: 1 } };
  delete graph['9'];
  return { ...graph, ...output };
}

export const pngOf = (width: number, height: number, r = 200): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: { r, g: 10, b: 10 } } }).png().toBuffer();

/** Plain-fetch calls on one emulator origin. */
export function comfyHttp(origin: () => string) {
  const post = (path: string, body: unknown) =>
    fetch(`${origin()}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const getJson = async (path: string): Promise<any> => (await fetch(`${origin()}${path}`)).json();
    const upload = async (name: string, bytes: Buffer, fields: Record<string, string> = {}): Promise<any> => {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), name);
    for (const [key, value] of Object.entries(fields)) form.append(key, value);
    const res = await fetch(`${origin()}/upload/image`, { method: 'POST', body: form });
    if (res.status !== 200) throw new Error(`upload answered ${res.status}`);
    return res.json();
  };
  /** POST /prompt that must be accepted; its {prompt_id, number, node_errors}. */
    const queuePrompt = async (prompt: unknown, clientId = 'client-a', extra: Record<string, unknown> = {}): Promise<any> => {
    const res = await post('/prompt', { prompt, client_id: clientId, ...extra });
    const body = await res.json();
    if (res.status !== 200) throw new Error(`POST /prompt answered ${res.status}: ${JSON.stringify(body)}`);
    return body;
  };
  return { post, getJson, upload, queuePrompt };
}
