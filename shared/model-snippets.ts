// Ready-to-run snippets for one model of the catalog: curl (sh, no jq), Python and JavaScript
// with the `openai` SDKs. Pure: a model record and the gateway's /v1 base URL in, text out, so
// the studio shows them and the tests run them. The key is never in them: `$MGW_API_KEY`,
// `os.environ["MGW_API_KEY"]` and `process.env.MGW_API_KEY` stand for it.
import type { ModelRecord } from './api-types.js';

export type SnippetLanguage = 'curl' | 'python' | 'javascript';

export const SNIPPET_LANGUAGES: readonly SnippetLanguage[] = ['curl', 'python', 'javascript'];

export type ModelSnippets = Record<SnippetLanguage, string>;

/** What the snippets do for a model: make (and edit) images, make a video, or just read it. */
export type SnippetKind = 'image' | 'video' | 'other';

export const KEY_ENV = 'MGW_API_KEY';

const IMAGE_PROMPT = 'a red fox in the snow';
const EDIT_PROMPT = 'make it black and white';
const VIDEO_PROMPT = 'waves at sunset';

export function snippetKind(model: ModelRecord): SnippetKind {
  const c = model.capabilities;
  if (model.model_type === 'video' || c.video_generation === true) return 'video';
  if (model.model_type === 'image' || c.image_generation === true || c.image_edit === true) return 'image';
  return 'other';
}

/** The size the snippets ask for: 1024x1024 (the API's default) when listed, else the first listed. */
export function snippetImageSize(model: ModelRecord): string | undefined {
  const sizes = model.capabilities.supported_sizes ?? [];
  return sizes.includes('1024x1024') ? '1024x1024' : sizes[0];
}

/** The video the snippets ask for: the first listed size and the shortest listed duration. */
export function snippetVideoShape(model: ModelRecord): { size?: string; seconds?: string } {
  const c = model.capabilities;
  const seconds = c.supported_seconds && c.supported_seconds.length > 0 ? String(Math.min(...c.supported_seconds)) : undefined;
  return { ...(c.supported_sizes?.[0] ? { size: c.supported_sizes[0] } : {}), ...(seconds ? { seconds } : {}) };
}

/** A shell word in single quotes. */
const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
/** A shell word as is when it is plain, else in single quotes. */
const word = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : sq(s));
/** A Python string literal (JSON's is valid Python). */
const lit = (s: string): string => JSON.stringify(s);
/** A JavaScript string literal in single quotes. */
const jsLit = (s: string): string => `'${JSON.stringify(s).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;

const AUTH = `-H "Authorization: Bearer $${KEY_ENV}"`;
const B64_SED = `sed -n 's/.*"b64_json": *"\\([^"]*\\)".*/\\1/p'`;
const field = (name: string) => `sed -n 's/.*"${name}": *"\\([^"]*\\)".*/\\1/p'`;

function pyHeader(base: string, imports: string[]): string {
  return [`import ${['os', ...imports].sort().join(', ')}`, 'from openai import OpenAI', '', `client = OpenAI(base_url=${lit(base)}, api_key=os.environ[${lit(KEY_ENV)}])`, '', ''].join('\n');
}

function jsHeader(base: string): string {
  return [
    '// Save as snippet.mjs and run: node snippet.mjs',
    "import fs from 'node:fs';",
    "import OpenAI from 'openai';",
    '',
    `const client = new OpenAI({ baseURL: ${jsLit(base)}, apiKey: process.env.${KEY_ENV} });`,
    '',
    '',
  ].join('\n');
}

function imageSnippets(model: ModelRecord, base: string): ModelSnippets {
  const id = model.id;
  const size = snippetImageSize(model);
  const generates = model.capabilities.image_generation !== false;
  const edits = model.capabilities.image_edit === true;
  // The edit uses the image just generated; a model that only edits needs a picture of yours.
  const source = generates ? 'image.png' : 'input.png';
  const maxRefs = model.capabilities.max_reference_images;

  const curl: string[] = [];
  const py: string[] = [];
  const js: string[] = [];
  if (generates) {
    const body = JSON.stringify({ model: id, prompt: IMAGE_PROMPT, ...(size ? { size } : {}) });
    curl.push(
      `# Generate an image with ${id}: image.json holds the answer (or the error), image.png the picture`,
      `curl -sS --fail-with-body ${base}/images/generations \\`,
      `  ${AUTH} \\`,
      `  -H 'Content-Type: application/json' \\`,
      `  -d ${sq(body)} \\`,
      `  -o image.json && ${B64_SED} image.json | base64 -d > image.png`,
    );
    py.push(
      `result = client.images.generate(model=${lit(id)}, prompt=${lit(IMAGE_PROMPT)}${size ? `, size=${lit(size)}` : ''})`,
      'with open("image.png", "wb") as f:',
      '    f.write(base64.b64decode(result.data[0].b64_json))',
      'print("saved image.png")',
    );
    js.push(
      `const result = await client.images.generate({ model: ${jsLit(id)}, prompt: ${jsLit(IMAGE_PROMPT)}${size ? `, size: ${jsLit(size)}` : ''} });`,
      "fs.writeFileSync('image.png', Buffer.from(result.data[0].b64_json, 'base64'));",
      "console.log('saved image.png');",
    );
  }
  if (edits) {
    if (curl.length > 0) curl.push('');
    if (py.length > 0) py.push('');
    if (js.length > 0) js.push('');
    const refs = maxRefs && maxRefs > 1 ? ` (up to ${maxRefs} files: -F 'image[]=@a.png' -F 'image[]=@b.png')` : '';
    curl.push(
      `# Edit ${source}${refs}: edited.json holds the answer, edited.png the picture`,
      `curl -sS --fail-with-body ${base}/images/edits \\`,
      `  ${AUTH} \\`,
      `  -F model=${word(id)} -F ${sq(`prompt=${EDIT_PROMPT}`)}${size ? ` -F size=${word(size)}` : ''} -F image=@${source} \\`,
      `  -o edited.json && ${B64_SED} edited.json | base64 -d > edited.png`,
    );
    py.push(
      `# Edit ${source}${maxRefs && maxRefs > 1 ? ` (a list of up to ${maxRefs} files works too)` : ''}`,
      `with open(${lit(source)}, "rb") as image:`,
      `    edited = client.images.edit(model=${lit(id)}, prompt=${lit(EDIT_PROMPT)}${size ? `, size=${lit(size)}` : ''}, image=image)`,
      'with open("edited.png", "wb") as f:',
      '    f.write(base64.b64decode(edited.data[0].b64_json))',
      'print("saved edited.png")',
    );
    js.push(
      `// Edit ${source}${maxRefs && maxRefs > 1 ? ` (an array of up to ${maxRefs} files works too)` : ''}`,
      `const edited = await client.images.edit({ model: ${jsLit(id)}, prompt: ${jsLit(EDIT_PROMPT)}${size ? `, size: ${jsLit(size)}` : ''}, image: fs.createReadStream(${jsLit(source)}) });`,
      "fs.writeFileSync('edited.png', Buffer.from(edited.data[0].b64_json, 'base64'));",
      "console.log('saved edited.png');",
    );
  }
  return {
    curl: curl.join('\n') + '\n',
    python: pyHeader(base, ['base64']) + py.join('\n') + '\n',
    javascript: jsHeader(base) + js.join('\n') + '\n',
  };
}

function videoSnippets(model: ModelRecord, base: string): ModelSnippets {
  const id = model.id;
  const { size, seconds } = snippetVideoShape(model);
  // A model that needs a reference image gets one (multipart); the others a JSON body.
  const withReference = model.capabilities.requires_reference_image === true;
  const params = { model: id, prompt: VIDEO_PROMPT, ...(seconds ? { seconds } : {}), ...(size ? { size } : {}) };
  const refNote = withReference ? ` (it needs a reference image: reference.png, a PNG, JPEG or WebP of yours)` : '';

  const create = withReference
    ? [
        `video=$(curl -sS --fail-with-body ${base}/videos \\`,
        `  ${AUTH} \\`,
        `  ${Object.entries(params).map(([k, v]) => `-F ${sq(`${k}=${v}`)}`).join(' ')} -F input_reference=@reference.png)`,
      ]
    : [
        `video=$(curl -sS --fail-with-body ${base}/videos \\`,
        `  ${AUTH} \\`,
        `  -H 'Content-Type: application/json' \\`,
        `  -d ${sq(JSON.stringify(params))})`,
      ];
  const curl = [
    `# Create a video task with ${id}${refNote}`,
    ...create,
    `printf '%s\\n' "$video"`,
    `id=$(printf '%s' "$video" | ${field('id')})`,
    `status=$(printf '%s' "$video" | ${field('status')})`,
    '',
    '# Poll it every 2 seconds until it ends (completed, failed or timeout)',
    'while [ -n "$id" ] && { [ "$status" = queued ] || [ "$status" = in_progress ]; }; do',
    '  sleep 2',
    `  status=$(curl -sS --fail-with-body ${base}/videos/$id ${AUTH} | ${field('status')})`,
    '  echo "$id: $status"',
    'done',
    '',
    '# Download the MP4',
    `[ "$status" = completed ] && curl -sS --fail-with-body -o video.mp4 ${base}/videos/$id/content ${AUTH} && echo "saved video.mp4"`,
  ];

  const pyArgs = [`model=${lit(id)}`, `prompt=${lit(VIDEO_PROMPT)}`, ...(seconds ? [`seconds=${lit(seconds)}`] : []), ...(size ? [`size=${lit(size)}`] : [])];
  const py = [
    `# Create a video task with ${id}${refNote}`,
    ...(withReference
      ? ['with open("reference.png", "rb") as reference:', `    video = client.videos.create(${pyArgs.join(', ')}, input_reference=reference)`]
      : [`video = client.videos.create(${pyArgs.join(', ')})`]),
    '',
    '# Poll it every 2 seconds until it ends (completed, failed or timeout)',
    'while video.status in ("queued", "in_progress"):',
    '    time.sleep(2)',
    '    video = client.videos.retrieve(video.id)',
    '    print(video.id, video.status, video.progress)',
    '',
    '# Download the MP4',
    'if video.status == "completed":',
    '    client.videos.download_content(video.id).write_to_file("video.mp4")',
    '    print("saved video.mp4")',
    'else:',
    '    print(video.status, video.error)',
  ];

  const jsArgs = [`model: ${jsLit(id)}`, `prompt: ${jsLit(VIDEO_PROMPT)}`, ...(seconds ? [`seconds: ${jsLit(seconds)}`] : []), ...(size ? [`size: ${jsLit(size)}`] : [])];
  if (withReference) jsArgs.push("input_reference: fs.createReadStream('reference.png')");
  const js = [
    `// Create a video task with ${id}${refNote}`,
    `let video = await client.videos.create({ ${jsArgs.join(', ')} });`,
    '',
    '// Poll it every 2 seconds until it ends (completed, failed or timeout)',
    "while (video.status === 'queued' || video.status === 'in_progress') {",
    '  await new Promise((resolve) => setTimeout(resolve, 2000));',
    '  video = await client.videos.retrieve(video.id);',
    '  console.log(video.id, video.status, video.progress);',
    '}',
    '',
    '// Download the MP4',
    "if (video.status === 'completed') {",
    '  const content = await client.videos.downloadContent(video.id);',
    "  fs.writeFileSync('video.mp4', Buffer.from(await content.arrayBuffer()));",
    "  console.log('saved video.mp4');",
    '} else {',
    '  console.log(video.status, video.error);',
    '}',
  ];
  return {
    curl: curl.join('\n') + '\n',
    python: pyHeader(base, ['time']) + py.join('\n') + '\n',
    javascript: jsHeader(base) + js.join('\n') + '\n',
  };
}

/** A model that is neither: read its record. */
function otherSnippets(model: ModelRecord, base: string): ModelSnippets {
  const path = encodeURIComponent(model.id);
  return {
    curl: `# Read the record of ${model.id}\ncurl -sS --fail-with-body ${base}/models/${path} ${AUTH}\n`,
    python: pyHeader(base, []) + `model = client.models.retrieve(${lit(model.id)})\nprint(model)\n`,
    javascript: jsHeader(base) + `const model = await client.models.retrieve(${jsLit(model.id)});\nconsole.log(model);\n`,
  };
}

/** The three snippets for a model, calling the gateway at `apiBaseUrl` (its /v1 root). */
export function buildModelSnippets(model: ModelRecord, apiBaseUrl: string): ModelSnippets {
  const base = apiBaseUrl.replace(/\/+$/, '');
  const kind = snippetKind(model);
  if (kind === 'video') return videoSnippets(model, base);
  if (kind === 'image') return imageSnippets(model, base);
  return otherSnippets(model, base);
}
