// Create a video: request type, model, duration and resolution limited to what the model lists,
// an optional/required reference, and the hold the gateway will reserve (videos.quote).
import { useEffect, useState, type FormEvent } from 'react';
import { ErrorMessage, WarningMessage } from '../components/alert';
import { PromptField } from '../components/prompt-field';
import { ReferencePicker } from '../components/reference-picker';
import { SelectField, toOptions } from '../components/select-field';
import { referenceProblem } from '../lib/files';
import { formatUsd } from '../lib/format';
import { isVideoModel, pick, referenceLimitsOf, requestTypesOf, secondsOf, sizesOf, type RequestType } from '../lib/models';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';
import { quoteKey } from '../stores/videos-store';
import { staleOnChange } from './stale-on-change';
import { modelOptions, useModelChoice } from './use-model-choice';

const TYPE_LABEL: Record<RequestType, string> = { 'text-to-video': 'Text to video', 'image-to-video': 'Image to video' };

export function VideoForm() {
  const { videos } = useStores();
  const choice = useModelChoice(isVideoModel, 'local-video');
  const [chosenType, setType] = useState<RequestType | undefined>(undefined);
  const [chosenSeconds, setSeconds] = useState<number | undefined>(undefined);
  const [chosenSize, setSize] = useState<string | undefined>(undefined);
  const [files, setFiles] = useState<File[]>([]);
  const [prompt, setPrompt] = useState('');
  const [localError, setLocalError] = useState<string | null>(null);

  const types = requestTypesOf(choice.model);
  const requestType = pick(types, chosenType) ?? 'text-to-video';
  const secondsList = secondsOf(choice.model);
  const seconds = pick(secondsList, chosenSeconds, 4);
  const sizes = sizesOf(choice.model);
  const size = pick(sizes, chosenSize);
  // The contract sends one reference for image-to-video.
  const limits = { ...referenceLimitsOf(choice.model, 1), maxImages: 1 };
  const needsReference = requestType === 'image-to-video';
  const problem = needsReference ? referenceProblem(files, limits) : null;

  const quote = useStore(videos, (s) => s.quote);
  const quoteError = useStore(videos, (s) => s.quoteError);
  const creating = useStore(videos, (s) => s.creating);
  const preparing = useStore(videos, (s) => s.preparing);
  const createError = useStore(videos, (s) => s.createError);
  const currentKey = seconds ? quoteKey({ model: choice.modelId, seconds, request_type: requestType }) : '';

  // Ask for the hold whenever what it depends on changes.
  useEffect(() => {
    if (!choice.modelId || !seconds) return;
    void videos.getState().requestQuote({ model: choice.modelId, seconds, request_type: requestType });
  }, [videos, choice.modelId, seconds, requestType]);

  const clearing = staleOnChange(() => {
    setLocalError(null);
    videos.getState().clearCreateError();
  });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (creating || !choice.modelId || !seconds) return;
    if (!prompt.trim()) return setLocalError('Describe the video in the prompt.');
    if (needsReference && files.length === 0) return setLocalError('Image to video needs a reference image.');
    if (problem) return;
    setLocalError(null);
    const file = needsReference ? files[0] : undefined;
    await videos.getState().create({
      model: choice.modelId,
      prompt,
      seconds,
      request_type: requestType,
      ...(size ? { size } : {}),
      ...(file ? { file } : {}),
    });
  };

  return (
    <form className="card form" onSubmit={(e) => void submit(e)} aria-label="Create a video">
      <h2>Create</h2>
      <fieldset className="field segmented">
        <legend>Request type</legend>
        {(Object.keys(TYPE_LABEL) as RequestType[]).map((type) => (
          <label key={type} className={`segment${type === requestType ? ' segment-on' : ''}`}>
            <input
              type="radio"
              name="request-type"
              value={type}
              checked={type === requestType}
              disabled={!types.includes(type)}
              onChange={() => clearing(setType)(type)}
            />
            {TYPE_LABEL[type]}
          </label>
        ))}
      </fieldset>
      <SelectField
        label="Model"
        value={choice.modelId}
        options={modelOptions(choice.models)}
        onChange={clearing(choice.setModelId)}
      />
      <div className="row">
        <SelectField
          label="Duration"
          value={String(seconds ?? '')}
          options={toOptions(secondsList, ' s')}
          onChange={clearing((v: string) => setSeconds(Number(v)))}
        />
        <SelectField
          label="Resolution"
          value={size ?? ''}
          options={toOptions(sizes)}
          onChange={clearing(setSize)}
        />
      </div>
      {needsReference ? (
        <ReferencePicker
          label="Reference image"
          files={files}
          limits={limits}
          onChange={clearing(setFiles)}
        />
      ) : null}
      <WarningMessage message={problem} />
      <PromptField
        value={prompt}
        onChange={clearing(setPrompt)}
        placeholder="Waves rolling in at sunset"
        rows={3}
      />
      <div className="quote" aria-live="polite">
        {quote && quote.key === currentKey ? (
          <>
            <strong>Hold: {formatUsd(quote.hold_usd)}</strong>
            <span className="muted">
              {formatUsd(quote.price_per_second_usd)} per second, reserved now, charged on completion
            </span>
          </>
        ) : quoteError ? null : (
          <span className="muted">Hold: …</span>
        )}
      </div>
      <ErrorMessage message={quoteError} />
      <ErrorMessage message={localError ?? createError} />
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={creating || !choice.modelId || problem !== null}>
          Create video
        </button>
        {creating ? <span className="muted" role="status">{preparing ? 'Preparing image…' : 'Submitting…'}</span> : null}
      </div>
    </form>
  );
}
