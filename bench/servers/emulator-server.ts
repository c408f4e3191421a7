// The OpenAI-compatible emulator in a process of its own, as a real upstream would be (and so
// the load generator's event loop is not also the upstream's). Controlled over IPC: settings
// for the image route, and an injected response body.
import { setChunkPause, startOpenAIEmulator, type Fault, type ImageSettings } from '../../test/emulators/index.js';

export type EmulatorCommand = { settings: Partial<ImageSettings> } | { inject: { route: 'POST /v1/images/generations'; fault: Fault } };

// A 1024x1024 request (a size the real API accepts) is answered with a 64x64 PNG: the longer side
// is capped at 64, so the bench measures the gateways, not the PNG encoder or the copy of a 1 MB body.
// Answers still come in several chunks, as from a real server, but with no timer between them:
// a 1 ms pause per chunk made every arm's latency ~4 ms of timer jitter around what is measured.
setChunkPause(0);
const emulator = await startOpenAIEmulator({ exactSize: false });
emulator.imageSettings.maxSide = 64;
process.on('message', (command: EmulatorCommand) => {
  if ('settings' in command) Object.assign(emulator.imageSettings, command.settings);
  else emulator.inject(command.inject.route, command.inject.fault);
  process.send!({ done: true });
});
process.send!({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKey });
