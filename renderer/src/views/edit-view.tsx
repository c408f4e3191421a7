// Image edits: 1-N reference images checked against the model's limits before sending, an
// instruction, an optional output size; the result shown like a generation.
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { ErrorMessage, WarningMessage } from '../components/alert';
import { ProgressBar } from '../components/progress-bar';
import { Gallery } from '../components/gallery';
import { ImageCard } from '../components/image-card';
import { PromptField } from '../components/prompt-field';
import { ReferencePicker } from '../components/reference-picker';
import { SelectField } from '../components/select-field';
import { referenceProblem } from '../lib/files';
import { isEditModel, referenceLimitsOf, sizesOf } from '../lib/models';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';
import { AUTO_SIZE_LABEL, automaticSizeHint } from './edit-size-hint';
import { staleOnChange } from './stale-on-change';
import { modelOptions, useModelChoice } from './use-model-choice';

const AUTO_SIZE = ''; // no size sent: the engine decides (see edit-size-hint.ts)

export function EditView() {
  const { images } = useStores();
  const choice = useModelChoice(isEditModel, 'local-image');
  const [files, setFiles] = useState<File[]>([]);
  const [prompt, setPrompt] = useState('');
  const [size, setSize] = useState(AUTO_SIZE);
  const [localError, setLocalError] = useState<string | null>(null);

  const limits = referenceLimitsOf(choice.model, 3);
  const problem = referenceProblem(files, limits);
  const sizes = sizesOf(choice.model);
  const sizeOptions = useMemo(
    () => [{ value: AUTO_SIZE, label: AUTO_SIZE_LABEL }, ...sizes.map((s) => ({ value: s, label: s }))],
    [sizes],
  );

  const editing = useStore(images, (s) => s.editing);
  const progress = useStore(images, (s) => s.progress);
  const preparing = useStore(images, (s) => s.preparing);
  const error = useStore(images, (s) => s.editError);
  const result = useStore(images, (s) => s.edited ?? s.gallery.find((item) => item.kind === 'edit') ?? null);
  const gallery = useStore(images, (s) => s.gallery);
  const galleryLoaded = useStore(images, (s) => s.galleryLoaded);
  const galleryError = useStore(images, (s) => s.galleryError);
  const edits = useMemo(() => gallery.filter((item) => item.kind === 'edit'), [gallery]);

  useEffect(() => {
    void images.getState().loadGallery();
  }, [images]);

  const clearing = staleOnChange(() => {
    setLocalError(null);
    images.getState().clearEditError();
  });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (editing || !choice.modelId) return;
    if (files.length === 0) return setLocalError(`Add 1 to ${limits.maxImages} reference images.`);
    if (problem) return; // already shown next to the picker
    if (!prompt.trim()) return setLocalError('Describe the edit in the prompt.');
    setLocalError(null);
    const outSize = size && sizes.includes(size) ? { size } : {};
    await images.getState().edit({ model: choice.modelId, prompt, files, ...outSize });
  };

  return (
    <div className="view">
      <div className="split">
        <form className="card form" onSubmit={(e) => void submit(e)} aria-label="Edit an image">
          <h2>Edit</h2>
          <ReferencePicker
            label="Reference images"
            files={files}
            limits={limits}
            onChange={clearing(setFiles)}
          />
          <WarningMessage message={problem} />
          <PromptField
            value={prompt}
            onChange={clearing(setPrompt)}
            placeholder="Make it black and white, then blur"
            rows={3}
          />
          <SelectField
            label="Model"
            value={choice.modelId}
            options={modelOptions(choice.models)}
            onChange={clearing(choice.setModelId)}
          />
          <SelectField
            label="Output size"
            value={size}
            options={sizeOptions}
            onChange={setSize}
            hint={size === AUTO_SIZE && !problem ? automaticSizeHint(choice.model, files.length) : null}
          />
          <ErrorMessage message={localError ?? error} />
          <div className="form-actions">
            <button type="submit" className="btn btn-primary" disabled={editing || !choice.modelId || problem !== null}>
              Edit image
            </button>
            {editing ? <span className="muted" role="status">{preparing ? 'Preparing images…' : `Editing…${progress !== null ? ` ${progress}%` : ''}`}</span> : null}
          </div>
          {editing && progress !== null ? <ProgressBar value={progress} label="Edit progress" /> : null}
        </form>
        <section className="result-pane" aria-label="Latest result">
          {result ? (
            <ImageCard item={result} variant="result" />
          ) : (
            <div className="card placeholder">{editing ? 'Editing…' : 'The edited image will appear here.'}</div>
          )}
        </section>
      </div>
      <Gallery title="Recent edits" items={edits} error={galleryError} loaded={galleryLoaded} />
    </div>
  );
}
