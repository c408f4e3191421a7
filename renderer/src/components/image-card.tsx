// One gallery item: the image, what made it, its cost, download and (optionally) delete.
import type { GalleryItem } from '../../../shared/studio-contract';
import { formatTime, formatUsd } from '../lib/format';
import { useMediaUrl } from '../stores/stores-context';

interface Props {
  item: GalleryItem;
  /** "result" is the large latest-result card; "thumb" a gallery tile. */
  variant: 'result' | 'thumb';
  onDelete?: () => void;
}

export function ImageCard({ item, variant, onDelete }: Props) {
  const url = useMediaUrl()(item.media);
  const fileName = item.media.split('/').pop() ?? `${item.id}.png`;
  return (
    <figure className={`card image-card image-${variant}`}>
      <div className="image-frame">
        <img
          src={url}
          alt={`${variant === 'result' ? 'Result' : 'Gallery image'}: ${item.prompt}`}
          width={item.width}
          height={item.height}
          loading={variant === 'thumb' ? 'lazy' : 'eager'}
        />
      </div>
      <figcaption>
        <p className="image-prompt" title={item.prompt}>
          {item.prompt}
        </p>
        <p className="image-meta">
          <span className={`badge ${item.kind === 'edit' ? 'badge-accent' : ''}`}>{item.kind}</span>
          <span>{item.model}</span>
          <span>
            {item.width}×{item.height}
          </span>
          <span className="cost">Cost {formatUsd(item.cost_usd)}</span>
        </p>
        <div className="image-actions">
          <span className="muted">{formatTime(item.created_at)}</span>
          <a className="btn btn-small" href={url} download={fileName}>
            Download
          </a>
          {onDelete ? (
            <button type="button" className="btn btn-small btn-danger" onClick={onDelete}>
              Delete
            </button>
          ) : null}
        </div>
      </figcaption>
    </figure>
  );
}
