// Presentation only: amounts arrive as exact decimal strings ("0.00614650") and stay exact.

/** "0.00614650" -> "$0.0061465", "5.00000000" -> "$5.00", "-1.5" -> "-$1.50". */
export function formatUsd(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!match) return `$${value}`;
  const [, sign = '', whole = '0', fraction = ''] = match;
  const trimmed = fraction.replace(/0+$/, '').padEnd(2, '0');
  return `${sign}$${whole}.${trimmed}`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}

/** Unix seconds, unix milliseconds or an ISO string -> a short local date and time. */
export function formatTime(value: number | string | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const date =
    typeof value === 'number' ? new Date(value < 1e12 ? value * 1000 : value) : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return date.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Whole counts with thousands separators, the same in every locale: 1234567 -> "1,234,567". */
export const formatCount = (n: number): string => Math.round(n).toLocaleString('en-US');
