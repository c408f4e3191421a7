// Videos: the create form and the live job list.
import { useEffect } from 'react';
import { ErrorMessage } from '../components/alert';
import { useStores } from '../stores/stores-context';
import { useStore } from '../stores/use-store';
import { VideoForm } from './video-form';
import { VideoJob } from './video-job';

export function VideosView() {
  const { videos } = useStores();
  const list = useStore(videos, (s) => s.videos);
  const loaded = useStore(videos, (s) => s.loaded);
  const error = useStore(videos, (s) => s.error);

  useEffect(() => {
    void videos.getState().load();
  }, [videos]);

  return (
    <div className="view">
      <div className="split split-wide">
        <VideoForm />
        <section className="section" aria-label="Video jobs">
          <div className="section-head">
            <h2>Jobs</h2>
            <span className="muted">{loaded ? `${list.length} job${list.length === 1 ? '' : 's'}` : 'Loading…'}</span>
          </div>
          <ErrorMessage message={error} />
          {loaded && list.length === 0 ? <p className="empty">No videos yet.</p> : null}
          <ul className="job-list">
            {list.map((video) => (
              <VideoJob key={video.id} video={video} />
            ))}
          </ul>
        </section>
      </div>
    </div>
  );
}
