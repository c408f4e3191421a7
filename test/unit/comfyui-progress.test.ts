// A ComfyUI prompt's percent from its events, for a listener that came in mid-run (a gateway
// restarted): progress_state (every node that started) restores the samplers it did not hear.
import { describe, expect, it } from 'vitest';
import { PromptProgress } from '../../electron/core/providers/comfyui/comfyui-progress.js';

const node = (class_type: string) => ({ class_type, inputs: {} });
const TWO_SAMPLERS = { '3': node('KSampler'), '12': node('KSamplerAdvanced'), '8': node('VAEDecode'), '9': node('SaveVideo') };
const state = (nodes: Record<string, { state: string; value: number; max: number }>) => ({ type: 'progress_state', data: { prompt_id: 'p', nodes } });

describe('PromptProgress and progress_state', () => {
  it('a late listener counts the sampler that finished before it came; nodes without steps take no share', () => {
    const progress = new PromptProgress(TWO_SAMPLERS);
    const changed = progress.feed(state({
      '4': { state: 'finished', value: 1, max: 1 },
      '3': { state: 'finished', value: 10, max: 10 },
      '12': { state: 'running', value: 3, max: 10 },
    }));
    expect({ changed, percent: progress.percent }).toEqual({ changed: true, percent: 65 });
    expect(progress.feed({ type: 'progress', data: { prompt_id: 'p', node: '12', value: 4, max: 10 } })).toBe(true);
    expect(progress.percent).toBe(70);
  });

  it('a node outside the samplers that reports steps takes a share; a cached sampler heard as such does not', () => {
    const progress = new PromptProgress(TWO_SAMPLERS);
    progress.feed({ type: 'execution_cached', data: { prompt_id: 'p', nodes: ['3'] } });
    progress.feed(state({ '3': { state: 'finished', value: 1, max: 1 }, '12': { state: 'finished', value: 10, max: 10 }, '20': { state: 'running', value: 2, max: 4 } }));
    expect(progress.percent).toBe(75);
  });

  it('never goes back, and stays below 100 until the run ends', () => {
    const progress = new PromptProgress(TWO_SAMPLERS);
    progress.feed(state({ '3': { state: 'finished', value: 10, max: 10 }, '12': { state: 'finished', value: 10, max: 10 } }));
    expect(progress.percent).toBe(99);
    expect(progress.feed(state({ '3': { state: 'running', value: 1, max: 10 } }))).toBe(false);
    expect(progress.feed({ type: 'execution_success', data: { prompt_id: 'p' } })).toBe(true);
    expect(progress.percent).toBe(100);
  });
});
