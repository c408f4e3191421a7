// Named video resolutions (16:9 frames), read the same way by pricing, the engines and the
// route checks of the catalog.
const NAMED: Record<string, { width: number; height: number }> = {
  '360p': { width: 640, height: 360 },
  '480p': { width: 854, height: 480 },
  '720p': { width: 1280, height: 720 },
  '1080p': { width: 1920, height: 1080 },
};

export function namedVideoDimensions(size: string): { width: number; height: number } | undefined {
  return NAMED[size.toLowerCase()];
}

/** A named resolution as WxH ("720p" -> "1280x720"); undefined for any other size. */
export function namedVideoSize(size: string): string | undefined {
  const known = namedVideoDimensions(size);
  return known ? `${known.width}x${known.height}` : undefined;
}
