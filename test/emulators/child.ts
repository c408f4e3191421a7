// Entry of an emulator in a process of its own (forked by process.ts): the gateway under test and
// the upstream then have independent event loops, as with a real provider, so a test of the
// gateway's timeouts measures the gateway, not a shared loop. Controlled over IPC; exits when
// its parent goes away.
import type { Fault, RecordedRequest } from './types.js';
import { startOpenAIEmulator, type OpenAIEmulatorOptions } from './openai-emulator.js';
import { startFalEmulator, type FalEmulatorOptions } from './fal-emulator.js';
import type { ImageSettings } from './openai-images.js';
import type { VideoBehaviour } from './openai-videos.js';
import type { FalBehaviour } from './fal-queue.js';

export type EmulatorKind = 'openai' | 'fal';

export interface ChildStart {
  kind: EmulatorKind;
  options?: OpenAIEmulatorOptions | FalEmulatorOptions;
}

/** Settings changed at run time: openai {image, video}; fal the queue's behaviour. */
export interface ChildSettings {
  image?: Partial<ImageSettings>;
  video?: Partial<VideoBehaviour>;
  fal?: Partial<FalBehaviour>;
}

/** A recorded request as sent over IPC (the body as UTF-8 text). */
export type RemoteRequest = Omit<RecordedRequest, 'body'> & { body: string };

export type ChildCommand =
  | { id: number; op: 'inject'; route: string; fault: Fault }
  | { id: number; op: 'clearFaults' }
  | { id: number; op: 'settings'; settings: ChildSettings }
  | { id: number; op: 'requests' }
  | { id: number; op: 'close' };

export type ChildMessage =
  | { ready: { baseUrl: string; origin: string; apiKey: string; routes: readonly string[] } }
  | { id: number; ok: true; value?: unknown }
  | { id: number; ok: false; error: string };

const send = (message: ChildMessage) => process.send!(message);

async function main(): Promise<void> {
  const start = JSON.parse(process.argv[2] ?? '{}') as ChildStart;
  const openai = start.kind === 'openai' ? await startOpenAIEmulator(start.options as OpenAIEmulatorOptions) : undefined;
  const fal = start.kind === 'fal' ? await startFalEmulator(start.options as FalEmulatorOptions) : undefined;
  const emulator = openai ?? fal;
  if (!emulator) throw new Error(`unknown emulator kind '${String(start.kind)}'`);

  const run = async (command: ChildCommand): Promise<unknown> => {
    switch (command.op) {
      case 'inject':
        emulator.inject(command.route, command.fault);
        return undefined;
      case 'clearFaults':
        emulator.clearFaults();
        return undefined;
      case 'settings':
        if (command.settings.image && openai) Object.assign(openai.imageSettings, command.settings.image);
        if (command.settings.video && openai) Object.assign(openai.videoBehaviour, command.settings.video);
        if (command.settings.fal && fal) Object.assign(fal.behaviour, command.settings.fal);
        return undefined;
      case 'requests':
        return emulator.requests.map((request): RemoteRequest => ({ ...request, body: request.body.toString('utf8') }));
      case 'close':
        await emulator.close();
        setImmediate(() => process.exit(0));
        return undefined;
    }
  };

  process.on('message', (command: ChildCommand) => {
    run(command).then(
      (value) => send({ id: command.id, ok: true, ...(value === undefined ? {} : { value }) }),
      (error: unknown) => send({ id: command.id, ok: false, error: error instanceof Error ? error.message : String(error) }),
    );
  });
  // The test process ended (or crashed): nothing may outlive it.
  process.on('disconnect', () => process.exit(0));
  send({ ready: { baseUrl: emulator.baseUrl, origin: emulator.origin, apiKey: emulator.apiKey, routes: emulator.routes } });
}

main().catch((error: unknown) => {
  process.stderr.write(`emulator child failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
