// Text to image: prompt, model, size; the latest result with its cost; the gallery below.
import { useEffect, useState, type FormEvent } from 'react';
import { ErrorMessage, Hint } from '../components/alert';
import { ProgressBar } from '../components/progress-bar';
import { Gallery } from '../components/gallery';
import { ImageCard } from '../components/image-card';
import { PromptField } from '../components/prompt-field';
import { SelectField, toOptions } from '../components/select-field';
import { isImageModel, pick, sizesOf } from '../lib/models';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';
import { modelOptions, useModelChoice } from './use-model-choice';

export function ImagesView() {
  const { images } = useStores();
  const choice = useModelChoice(isImageModel, 'local-image');
  const [prompt, setPrompt] = useState('');
  const [chosenSize, setSize] = useState<string | undefined>(undefined);
  const sizes = sizesOf(choice.model);
  const size = pick(sizes, chosenSize, '1024x1024');

  const generating = useStore(images, (s) => s.generating);
  const progress = useStore(images, (s) => s.progress);
  const error = useStore(images, (s) => s.generateError);
  // Until something is generated in this session, show the newest generation from the gallery.
  const result = useStore(images, (s) => s.generated ?? s.gallery.find((item) => item.kind === 'generation') ?? null);
  const gallery = useStore(images, (s) => s.gallery);
  const galleryLoaded = useStore(images, (s) => s.galleryLoaded);
  const galleryError = useStore(images, (s) => s.galleryError);

  useEffect(() => {
    void images.getState().loadGallery();
  }, [images]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (generating || !choice.modelId || !prompt.trim()) return;
    void images.getState().generate({ model: choice.modelId, prompt, ...(size ? { size } : {}) });
  };

  return (
    <div className="view">
      <div className="split">
        <form className="card form" onSubmit={submit} aria-label="Generate an image">
          <h2>Generate</h2>
          <PromptField value={prompt} onChange={setPrompt} placeholder="A lighthouse on a cliff at sunset" />
          <SelectField label="Model" value={choice.modelId} options={modelOptions(choice.models)} onChange={choice.setModelId} />
          <SelectField label="Size" value={size ?? ''} options={toOptions(sizes)} onChange={setSize} />
          {choice.loaded && choice.models.length === 0 ? <Hint>No image model in the catalog.</Hint> : null}
          <ErrorMessage message={error} />
          <div className="form-actions">
            <button type="submit" className="btn btn-primary" disabled={generating || !prompt.trim() || !choice.modelId}>
              Generate
            </button>
            {generating ? <span className="muted" role="status">Generating…{progress !== null ? ` ${progress}%` : ''}</span> : null}
          </div>
          {generating && progress !== null ? <ProgressBar value={progress} label="Generation progress" /> : null}
        </form>
        <section className="result-pane" aria-label="Latest result">
          {result ? (
            <ImageCard item={result} variant="result" />
          ) : (
            <div className="card placeholder">{generating ? 'Generating…' : 'Your image will appear here.'}</div>
          )}
        </section>
      </div>
      <Gallery title="Gallery" items={gallery} error={galleryError} loaded={galleryLoaded} />
    </div>
  );
}
