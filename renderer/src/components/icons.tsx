// Small stroke icons for the navigation (inline SVG: no icon font, nothing to fetch).
import type { ViewId } from '../stores/ui-store';

const PATHS: Record<ViewId | 'sun' | 'moon', string> = {
  models: 'M4 6h16M4 12h16M4 18h10',
  images: 'M4 5h16v14H4zM4 15l4-4 4 4 3-3 5 5M15 9.5a1.5 1.5 0 1 0 0-.01',
  edit: 'M4 20h4L19 9l-4-4L4 16zM13.5 6.5l4 4',
  videos: 'M4 6h11v12H4zM15 10l5-3v10l-5-3',
  billing: 'M3 7h18v10H3zM3 11h18M7 15h3',
  keys: 'M14 10a4 4 0 1 0-3.5 3.97L10 14v3h3v3h3v-3.5l-2.1-2.1A4 4 0 0 0 14 10z',
  providers: 'M4 4h16v6H4zM4 14h16v6H4zM8 7h.01M8 17h.01',
  activity: 'M3 12h4l3-7 4 14 3-7h4',
  sun: 'M12 7a5 5 0 1 0 0 10 5 5 0 0 0 0-10zM12 1v3M12 20v3M4.2 4.2l2.1 2.1M17.7 17.7l2.1 2.1M1 12h3M20 12h3M4.2 19.8l2.1-2.1M17.7 6.3l2.1-2.1',
  moon: 'M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z',
};

export function Icon({ name }: { name: keyof typeof PATHS }) {
  return (
    <svg className="icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
