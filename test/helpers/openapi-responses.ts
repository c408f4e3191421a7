// Checks a /v1 response against the OpenAPI document the gateway serves: the status must be one
// the operation lists, and a JSON body must match its schema (extra fields fail: the schemas
// forbid them), a media body must have the documented type.
import Ajv2020 from 'ajv/dist/2020.js';
import type { RawResponse } from './http.js';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>> };

const DOC_ID = 'https://media-gateway.local/openapi.json';
const pointer = (...parts: string[]) => parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

export function responseChecker(document: unknown): (method: string, path: string, response: RawResponse) => void {
  const doc = document as Doc;
  // Ajv comes with Fastify; formats (uri) are not checked, as ajv-formats is not ours to import.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ ...(document as object), $id: DOC_ID });
  const templates = Object.keys(doc.paths).map((template) => ({
    template,
    // {id} of /v1/models/{id} may hold slashes; a task id may not.
    pattern: new RegExp(`^${template.replace(/\/\{id\}$/, template.startsWith('/v1/models/') ? '/.+' : '/[^/]+').replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  return (method, path, response) => {
    const where = `${method} ${path} -> ${response.status}`;
    const bare = path.split('?')[0]!;
    const matches = templates.filter((t) => t.pattern.test(bare) && doc.paths[t.template]![method.toLowerCase()]);
    // A literal path (/v1/videos) wins over a template that would also match it.
    const match = matches.find((t) => t.template === bare) ?? matches[0];
    if (!match) throw new Error(`${where}: no operation in the document`);
    const operation = doc.paths[match.template]![method.toLowerCase()]!;
    const answer = operation.responses[String(response.status)];
    if (!answer) throw new Error(`${where}: status not in the document (${Object.keys(operation.responses).join(', ')})`);
    if (!response.headers.get('x-request-id')) throw new Error(`${where}: no x-request-id`);
    const content = answer.content ?? {};
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (Object.keys(content).length === 0) {
      if (response.text !== '' && type === 'application/json') throw new Error(`${where}: a body the document does not describe`);
      return;
    }
    if (!(type in content)) throw new Error(`${where}: content-type ${type}, documented ${Object.keys(content).join(', ')}`);
    if (type !== 'application/json') return;
    const ref = `${DOC_ID}#/${pointer('paths', match.template, method.toLowerCase(), 'responses', String(response.status), 'content', type, 'schema')}`;
    const validate = ajv.getSchema(ref);
    if (!validate) throw new Error(`${where}: no schema at ${ref}`);
    if (!validate(response.body)) throw new Error(`${where}: ${ajv.errorsText(validate.errors)}; body ${response.text.slice(0, 300)}`);
  };
}
