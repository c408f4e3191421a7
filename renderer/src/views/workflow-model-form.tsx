// A ComfyUI workflow as a model: the file exported with "Export (API)", the model id and what it
// outputs. The gateway checks the workflow (its placeholders, its output node) and refuses it
// naming what is wrong; a new model gets default prices, changed later like any other.
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../components/alert';
import { SelectField } from '../components/select-field';
import { TextField } from '../components/text-field';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';

const OUTPUT_OPTIONS = [
  { value: 'image', label: 'Image (SaveImage)' },
  { value: 'video', label: 'Video (SaveVideo or VHS_VideoCombine, MP4)' },
];

export function WorkflowModelForm({ providerId, onDone }: { providerId: string; onDone(): void }) {
  const { catalog } = useStores();
  const putting = useStore(catalog, (s) => s.puttingWorkflow);
  const error = useStore(catalog, (s) => s.workflowError);
  const [id, setId] = useState(`${providerId}/`);
  const [output, setOutput] = useState<'image' | 'video'>('image');
  const [file, setFile] = useState<File | null>(null);
  const fileId = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (putting || !file) return;
    const added = await catalog.getState().putWorkflow({ id: id.trim(), provider: providerId, workflow: await file.text(), output });
    if (added) onDone();
  };

  return (
    <form className="form" onSubmit={(e) => void submit(e)} aria-label={`Add a workflow model to ${providerId}`}>
      <p className="muted small">
        Export the workflow from ComfyUI with <strong>Export (API)</strong> after putting placeholders in its inputs: {'{{prompt}}'} (required),{' '}
        {'{{width}}'}, {'{{height}}'}, {'{{seed}}'}, {'{{image_1}}'}–{'{{image_3}}'}, {'{{seconds}}'}, {'{{fps}}'}, {'{{frames}}'}.
      </p>
      <div className="row">
        <TextField label="Model id" value={id} onChange={setId} hint="How clients name it in the model field." />
        <SelectField label="Output" value={output} options={OUTPUT_OPTIONS} onChange={(v) => setOutput(v as 'image' | 'video')} />
        <div className="field">
          <label htmlFor={fileId}>Workflow file (API format)</label>
          <input id={fileId} type="file" accept=".json,application/json" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        </div>
      </div>
      <ErrorMessage message={error} />
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={putting || !file || id.trim() === ''}>
          Add workflow model
        </button>
        <button type="button" className="btn" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
