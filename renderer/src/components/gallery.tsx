// The persisted gallery (gallery.list), newest first.
import type { GalleryItem } from '../../../shared/studio-contract';
import { useStores } from '../stores/stores-context';
import { ErrorMessage } from './alert';
import { ImageCard } from './image-card';

interface Props {
  title: string;
  items: GalleryItem[];
  error: string | null;
  loaded: boolean;
}

export function Gallery({ title, items, error, loaded }: Props) {
  const { images } = useStores();
  return (
    <section className="section" aria-label={title}>
      <div className="section-head">
        <h2>{title}</h2>
        <span className="muted">{loaded ? `${items.length} image${items.length === 1 ? '' : 's'}` : 'Loading…'}</span>
      </div>
      <ErrorMessage message={error} />
      {loaded && items.length === 0 ? <p className="empty">Nothing here yet. Your results will be kept here.</p> : null}
      <div className="gallery-grid">
        {items.map((item) => (
          <ImageCard key={item.id} item={item} variant="thumb" onDelete={() => void images.getState().remove(item.id)} />
        ))}
      </div>
    </section>
  );
}
