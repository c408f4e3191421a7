/**
 * Edit instruction parser: finds every recognised operation in the prompt (case-insensitive),
 * keeps them in the order they appear, and resolves overlaps in favour of the earliest,
 * then longest, phrase ("flip horizontally" is one mirror, not a flip plus noise).
 */

export type ResizeSpec =
  | { type: 'exact'; width: number; height: number }
  | { type: 'scale'; factor: number }
  | { type: 'longest'; size: number };

export type EditOp =
  | { kind: 'grayscale' }
  | { kind: 'negate' }
  | { kind: 'blur'; sigma: number }
  | { kind: 'sharpen'; sigma: number }
  | { kind: 'rotate'; angle: number }
  | { kind: 'flip' }
  | { kind: 'mirror' }
  | { kind: 'sepia' }
  | { kind: 'brighten'; factor: number }
  | { kind: 'darken'; factor: number }
  | { kind: 'saturate'; factor: number }
  | { kind: 'desaturate'; factor: number }
  | { kind: 'contrast'; factor: number }
  | { kind: 'pixelate'; block: number | null }
  | { kind: 'tint'; colour: TintColour }
  | { kind: 'resize'; spec: ResizeSpec };

/** Colours an instruction may tint the image with ("make it green", "warmer"). */
export type TintColour = 'red' | 'orange' | 'yellow' | 'gold' | 'green' | 'teal' | 'cyan' | 'blue' | 'purple' | 'pink' | 'magenta' | 'warm' | 'cool';

/** How several reference images are combined. */
export type ComposeMode = 'collage' | 'stack' | 'grid' | 'blend' | 'overlay' | 'multiply';

export interface EditPlan {
  ops: EditOp[];
  /** Composition explicitly requested by the prompt, or null. */
  compose: ComposeMode | null;
}

type Found = { kind: 'op'; op: EditOp } | { kind: 'compose'; mode: ComposeMode };
type Match = RegExpExecArray;

interface Rule {
  pattern: RegExp;
  build: (m: Match) => Found | null;
}

const THE_IMAGE = String.raw`(?:\s+(?:it|the\s+(?:image|picture|photo)))?`;
const DEGREES = String.raw`(-?\d+(?:\.\d+)?)\s*(?:°|º|deg(?:ree)?s?\b)?`;
const DIRECTION = String.raw`(left|right|counter[\s-]?clockwise|anti[\s-]?clockwise|clockwise|ccw|cw)`;

function num(text: string | undefined): number | null {
  if (text === undefined) return null;
  const n = Number.parseFloat(text);
  return Number.isFinite(n) ? n : null;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

const op = (value: EditOp): Found => ({ kind: 'op', op: value });
const compose = (mode: ComposeMode): Found => ({ kind: 'compose', mode });

function rotation(amount: string | undefined, direction: string | undefined): Found | null {
  const n = num(amount);
  if (n === null && direction === undefined) return null;
  const ccw = direction !== undefined && /^(left|counter|anti|ccw)/i.test(direction);
  const angle = ccw ? -(n ?? 90) : (n ?? 90);
  return op({ kind: 'rotate', angle: ((angle % 360) + 360) % 360 });
}

const COLOUR_WORDS = String.raw`(red|orange|yellow|gold(?:en)?|green|teal|cyan|blue|purple|violet|pink|magenta)(?:ish)?`;

/** A colour word the patterns matched (COLOUR_WORDS' group), as its tint. */
function tint(word: string): Found {
  const name = word.toLowerCase();
  return op({ kind: 'tint', colour: (name === 'golden' ? 'gold' : name === 'violet' ? 'purple' : name) as TintColour });
}

function percent(m: Match, fallback: number): number {
  return (num(m[1]) ?? fallback) / 100;
}

const RULES: readonly Rule[] = [
  { pattern: /\b(?:gr[ae]y[\s-]?scale|gr[ae]y(?:ed)?|black[\s-]*(?:and|&|n)[\s-]*white|b\s*[&/]\s*w|mono(?:chrome|chromatic)?|colou?rless|no\s+colou?rs?)\b/gi, build: () => op({ kind: 'grayscale' }) },
  { pattern: /\b(?:invert(?:ed)?(?:\s+(?:the\s+)?colou?rs?)?|inverse|negative|negated?)\b/gi, build: () => op({ kind: 'negate' }) },
  {
    pattern: /\b(?:gaussian\s+)?(?:blur(?:red|ry)?|soften|defocus(?:ed)?|out\s+of\s+focus)\b(?:\s+(?:it\s+)?(?:by\s+|radius\s+|sigma\s+)?(\d+(?:\.\d+)?)(?:\s*px)?)?/gi,
    build: (m) => op({ kind: 'blur', sigma: clamp(num(m[1]) ?? 3, 0.3, 100) }),
  },
  {
    pattern: /\b(?:sharpen(?:ed)?|sharper|crisp(?:er)?|unblur|deblur|enhance\s+details?)\b(?:\s+(?:by\s+)?(\d+(?:\.\d+)?))?/gi,
    build: (m) => op({ kind: 'sharpen', sigma: clamp(num(m[1]) ?? 1.5, 0.3, 10) }),
  },
  {
    pattern: new RegExp(String.raw`\b(?:rotate[ds]?|rotation|spin)\b(?:\s+(?:it|the\s+(?:image|picture|photo)|by|to))*(?:\s*${DEGREES})?(?:\s*(?:(?:to\s+)?the\s+)?${DIRECTION}\b)?`, 'gi'),
    build: (m) => rotation(m[1], m[2]) ?? op({ kind: 'rotate', angle: 90 }),
  },
  { pattern: new RegExp(String.raw`\bturn${THE_IMAGE}\s+(?:${DEGREES}\s*)?(?:(?:(?:to\s+)?the\s+)?${DIRECTION}\b)?`, 'gi'), build: (m) => rotation(m[1], m[2]) },
  { pattern: /\bupside[\s-]?down\b/gi, build: () => op({ kind: 'rotate', angle: 180 }) },
  {
    pattern: new RegExp(String.raw`\b(?:flip(?:ped)?|flop)${THE_IMAGE}(?:\s+(vertical(?:ly)?|upside[\s-]?down|top[\s-]*(?:to|-)[\s-]*bottom|horizontal(?:ly)?|left[\s-]*(?:to|-)[\s-]*right|sideways))?\b`, 'gi'),
    build: (m) => op({ kind: m[1] !== undefined && /^(hor|left|side)/i.test(m[1]) ? 'mirror' : 'flip' }),
  },
  { pattern: /\b(horizontal(?:ly)?|vertical(?:ly)?)\s+(?:flip(?:ped)?|mirror(?:ed)?)\b/gi, build: (m) => op({ kind: /^hor/i.test(m[1] ?? '') ? 'mirror' : 'flip' }) },
  {
    pattern: new RegExp(String.raw`\bmirror(?:ed)?${THE_IMAGE}(?:\s+(vertical(?:ly)?|horizontal(?:ly)?))?\b`, 'gi'),
    build: (m) => op({ kind: /^vert/i.test(m[1] ?? '') ? 'flip' : 'mirror' }),
  },
  { pattern: /\b(?:sepia|vintage|old[\s-]?(?:photo|fashioned|timey|school)|antique)\b/gi, build: () => op({ kind: 'sepia' }) },
  {
    pattern: /\b(?:brighten|brighter|bright|lighten|lighter|more\s+light|increase\s+(?:the\s+)?brightness|brightness\s+up|raise\s+(?:the\s+)?exposure|overexpose)\b(?:\s+(?:it\s+)?(?:by\s+)?(\d+(?:\.\d+)?)\s*%)?/gi,
    build: (m) => op({ kind: 'brighten', factor: clamp(1 + percent(m, 30), 1.01, 4) }),
  },
  {
    pattern: /\b(?:darken|darker|dark|dim(?:mer)?|decrease\s+(?:the\s+)?brightness|less\s+bright|lower\s+(?:the\s+)?exposure|underexpose)\b(?:\s+(?:it\s+)?(?:by\s+)?(\d+(?:\.\d+)?)\s*%)?/gi,
    build: (m) => op({ kind: 'darken', factor: clamp(1 - percent(m, 30), 0.05, 0.99) }),
  },
  { pattern: new RegExp(String.raw`\b(?:make|turn|colou?r|paint|tint)${THE_IMAGE}(?:\s+(?:in|to))?\s+${COLOUR_WORDS}\b`, 'gi'), build: (m) => tint(m[1]!) },
  { pattern: new RegExp(String.raw`\b${COLOUR_WORDS}\s+(?:tint|tone|filter|hue|cast|wash|grade)\b`, 'gi'), build: (m) => tint(m[1]!) },
  { pattern: /\b(?:warmer|warm\s+(?:it\s+up|tones?|colou?rs?|filter|tint))\b/gi, build: () => op({ kind: 'tint', colour: 'warm' }) },
  { pattern: /\b(?:cooler|colder|cool\s+(?:it\s+down|tones?|colou?rs?|filter|tint))\b/gi, build: () => op({ kind: 'tint', colour: 'cool' }) },
  { pattern: /\b(?:saturate|more\s+saturat(?:ed|ion)|vivid|vibrant|more\s+colou?rful|boost\s+(?:the\s+)?colou?rs?)\b/gi, build: () => op({ kind: 'saturate', factor: 1.5 }) },
  { pattern: /\b(?:desaturated?|less\s+saturat(?:ed|ion)|muted|washed[\s-]out|faded)\b/gi, build: () => op({ kind: 'desaturate', factor: 0.5 }) },
  { pattern: /\b(?:more\s+contrast|increase\s+(?:the\s+)?contrast|high[\s-]contrast|boost\s+(?:the\s+)?contrast|(?:add\s+)?contrast)\b/gi, build: () => op({ kind: 'contrast', factor: 1.35 }) },
  { pattern: /\b(?:less\s+contrast|low[\s-]contrast|(?:reduce|decrease|lower)\s+(?:the\s+)?contrast)\b/gi, build: () => op({ kind: 'contrast', factor: 0.7 }) },
  {
    pattern: /\b(?:pixel(?:ate|ated|ize|ized|ise|ised)?(?:\s+art)?|pixelart|8[\s-]?bit|mosaic)\b(?:\s+(?:by\s+|block\s+|size\s+)?(\d+)(?:\s*px)?)?/gi,
    build: (m) => {
      const n = num(m[1]);
      return op({ kind: 'pixelate', block: n === null ? null : clamp(Math.round(n), 2, 512) });
    },
  },
  {
    pattern: /\b(?:(?:resize|scale|size|crop)\s+(?:it\s+|the\s+image\s+)?(?:to\s+)?)?(\d{1,5})\s*(?:px\s*)?[x×*]\s*(\d{1,5})(?:\s*(?:px|pixels)\b)?/gi,
    build: (m) => {
      const width = num(m[1]);
      const height = num(m[2]);
      if (width === null || height === null || width < 1 || height < 1) return null;
      return op({ kind: 'resize', spec: { type: 'exact', width, height } });
    },
  },
  {
    pattern: /\b(?:resize|rescale|scale|upscale|downscale|enlarge|shrink|zoom)\s+(?:it\s+|the\s+image\s+)?(?:by\s+|to\s+)?(\d+(?:\.\d+)?)\s*(%|x\b|px\b|pixels\b)?/gi,
    build: (m) => {
      const n = num(m[1]);
      if (n === null || n <= 0) return null;
      const unit = m[2]?.toLowerCase();
      if (unit === '%') return op({ kind: 'resize', spec: { type: 'scale', factor: n / 100 } });
      if (unit === 'x' || (unit === undefined && n <= 8)) return op({ kind: 'resize', spec: { type: 'scale', factor: n } });
      return op({ kind: 'resize', spec: { type: 'longest', size: Math.round(n) } });
    },
  },
  {
    pattern: /\b(?:half(?:\s+(?:the\s+)?(?:size|resolution|scale))|half[\s-]size|halve[ds]?(?:\s+(?:the\s+)?(?:size|resolution))?|downscale|shrink|make\s+(?:it\s+)?smaller)\b/gi,
    build: () => op({ kind: 'resize', spec: { type: 'scale', factor: 0.5 } }),
  },
  {
    pattern: /\b(?:double(?:\s+(?:the\s+)?(?:size|resolution|scale))|double[\s-]size|twice\s+(?:as\s+(?:big|large)|the\s+size)|upscale|enlarge|make\s+(?:it\s+)?(?:bigger|larger))\b/gi,
    build: () => op({ kind: 'resize', spec: { type: 'scale', factor: 2 } }),
  },
  { pattern: /\b(?:overlay|overlaid|superimposed?)\b/gi, build: () => compose('overlay') },
  { pattern: /\bmultiply\b/gi, build: () => compose('multiply') },
  { pattern: /\b(?:blend(?:ed|ing)?|mix(?:ed)?|merged?|fused?|double\s+exposure|average)\b/gi, build: () => compose('blend') },
  { pattern: /\b(?:stack(?:ed)?|top\s+and\s+bottom|one\s+above\s+the\s+other|on\s+top\s+of\s+each\s+other)\b/gi, build: () => compose('stack') },
  { pattern: /\b(?:grid|tiled?|contact\s+sheet)\b/gi, build: () => compose('grid') },
  { pattern: /\b(?:collage|side[\s-]by[\s-]side|combined?|together|montage|diptych|triptych|next\s+to\s+each\s+other|join)\b/gi, build: () => compose('collage') },
];

interface Located {
  start: number;
  end: number;
  found: Found;
}

export function parseEditPrompt(prompt: string): EditPlan {
  const hits: Located[] = [];
  for (const rule of RULES) {
    for (const m of prompt.matchAll(rule.pattern)) {
      const found = rule.build(m);
      if (found !== null) hits.push({ start: m.index, end: m.index + m[0].trimEnd().length, found });
    }
  }
  hits.sort((a, b) => a.start - b.start || b.end - a.end);
  const ops: EditOp[] = [];
  let composeMode: ComposeMode | null = null;
  let reached = -1;
  for (const hit of hits) {
    if (hit.start < reached) continue;
    reached = hit.end;
    if (hit.found.kind === 'op') ops.push(hit.found.op);
    else composeMode ??= hit.found.mode;
  }
  return { ops, compose: composeMode };
}
