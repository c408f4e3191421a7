// Reference images: a file input plus a drop zone, with previews (object URLs, revoked when a
// file goes away). The parent owns the files and shows the model's limits problem, if any.
import { useEffect, useId, useState, type DragEvent } from 'react';
import { REFERENCE_ACCEPT } from '../lib/files';
import { formatBytes } from '../lib/format';
import type { ReferenceLimits } from '../lib/models';

interface Props {
  label: string;
  files: File[];
  limits: ReferenceLimits;
  onChange(files: File[]): void;
}

function Preview({ file, tooLarge, onRemove }: { file: File; tooLarge: boolean; onRemove(): void }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const objectUrl = URL.createObjectURL(file);
    setUrl(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [file]);
  return (
    <li className={`ref-preview${tooLarge ? ' ref-invalid' : ''}`}>
      {url ? <img src={url} alt={`Reference ${file.name}`} /> : <span className="ref-placeholder" />}
      <div className="ref-meta">
        <span className="ref-name" title={file.name}>
          {file.name}
        </span>
        <span className="muted">
          {formatBytes(file.size)}
          {tooLarge ? ' · too large' : ''}
        </span>
      </div>
      <button type="button" className="btn btn-small btn-ghost" onClick={onRemove} aria-label={`Remove ${file.name}`}>
        Remove
      </button>
    </li>
  );
}

export function ReferencePicker({ label, files, limits, onChange }: Props) {
  const inputId = useId();
  const [dragging, setDragging] = useState(false);
  const single = limits.maxImages <= 1;

  // One-reference models replace the file; others append (the parent reports going over the count).
  const add = (picked: File[]) => {
    if (picked.length === 0) return;
    onChange(single ? picked.slice(0, 1) : [...files, ...picked]);
  };
  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    add(Array.from(event.dataTransfer.files));
  };

  const limitText = `${single ? 'One image' : `Up to ${limits.maxImages} images`}, PNG, JPEG or WebP${
    limits.maxBytes !== null ? `, ${formatBytes(limits.maxBytes)} each` : ''
  }`;

  return (
    <fieldset className="field refs">
      <legend>{label}</legend>
      <div
        className={`dropzone${dragging ? ' dropzone-active' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <span>Drop {single ? 'an image' : 'images'} here or</span>
        <label htmlFor={inputId} className="btn btn-small">
          Choose {single ? 'file' : 'files'}
        </label>
        <input
          id={inputId}
          className="visually-hidden"
          type="file"
          aria-label={label}
          accept={REFERENCE_ACCEPT}
          multiple={!single}
          onChange={(e) => {
            add(Array.from(e.target.files ?? []));
            e.target.value = ''; // picking the same file again must fire change
          }}
        />
        <span className="field-hint">{limitText}</span>
      </div>
      {files.length > 0 ? (
        <ul className="ref-list">
          {files.map((file, index) => (
            <Preview
              key={`${file.name}-${file.size}-${file.lastModified}-${index}`}
              file={file}
              tooLarge={limits.maxBytes !== null && file.size > limits.maxBytes}
              onRemove={() => onChange(files.filter((_, i) => i !== index))}
            />
          ))}
        </ul>
      ) : null}
    </fieldset>
  );
}
