// One video task: live status and progress (from videos.updated), its money, cancel while active,
// and the inline player plus download once completed.
import { useState } from 'react';
import type { StudioVideo } from '../../../shared/studio-contract';
import { ProgressBar } from '../components/progress-bar';
import { formatTime, formatUsd } from '../lib/format';
import { useMediaUrl, useStores } from '../stores/stores-context';
import { isActive } from '../stores/video-merge';

const STATUS_CLASS: Record<StudioVideo['status'], string> = {
  queued: 'badge',
  in_progress: 'badge badge-accent',
  completed: 'badge badge-success',
  failed: 'badge badge-danger',
  timeout: 'badge badge-warning',
};

function moneyLabel(video: StudioVideo): string {
  if (isActive(video)) return `Hold ${formatUsd(video.cost_usd)}`;
  if (video.status === 'completed') return `Cost ${formatUsd(video.cost_usd)}`;
  return "Hold released";
}

export function VideoJob({ video }: { video: StudioVideo }) {
  const { videos } = useStores();
  const mediaUrl = useMediaUrl();
  const active = isActive(video);
  const src = video.status === 'completed' && video.media ? mediaUrl(video.media) : null;
  // An upstream may send a codec the browser lacks: say so instead of a silent 0:00 player.
  const [unplayable, setUnplayable] = useState(false);
  return (
    <li className="card job" aria-label={`Video ${video.id}`} data-status={video.status}>
      <div className="job-head">
        <span className={STATUS_CLASS[video.status]}>{video.status.replace('_', ' ')}</span>
        <strong>{video.model}</strong>
        <span className="muted">
          {video.seconds} s · {video.size} · {video.request_type}
        </span>
        <span className="job-money">{moneyLabel(video)}</span>
      </div>
      {active ? (
        <div className="job-progress">
          <ProgressBar value={video.progress} label={`Progress of ${video.id}`} />
          <span className="muted">{Math.round(video.progress)}%</span>
        </div>
      ) : null}
      {src && !unplayable ? <video className="job-video" controls preload="auto" src={src} onError={() => setUnplayable(true)} /> : null}
      {src && unplayable ? (
        <p className="alert alert-warning" role="status">
          This window cannot play this video (its format or codec); download it to watch it.
        </p>
      ) : null}
      {video.error ? (
        <p className="alert alert-error">
          {video.error.code}: {video.error.message}
        </p>
      ) : null}
      <div className="job-foot">
        <span className="muted mono">{video.id}</span>
        <span className="muted">{formatTime(video.created_at)}</span>
        {src ? (
          <a className="btn btn-small" href={src} download={`${video.id}.mp4`}>
            Download
          </a>
        ) : null}
        {active ? (
          <button type="button" className="btn btn-small btn-danger" aria-label={`Cancel ${video.id}`} onClick={() => void videos.getState().cancel(video.id)}>
            Cancel
          </button>
        ) : null}
      </div>
    </li>
  );
}
