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
  return (asked, path, response) => {
    const where = `${asked} ${path} -> ${response.status}`;
    // HEAD answers as GET does, without the body (RFC 9110 9.3.2): it is checked as GET's answer.
    const method = asked === 'HEAD' ? 'GET' : asked;
    const bare = path.split('?')[0]!;
    const matches = templates.filter((t) => t.pattern.test(bare) && doc.paths[t.template]![method.toLowerCase()]);
    // A literal path (/v1/videos) wins over a template that would also match it.
    const match = matches.find((t) => t.template === bare) ?? matches[0];
    if (!match) {
      // No operation: an unknown path (404) or a method a known path does not take (405), each
      // the standard error body, which the document names once (components/schemas/ErrorBody).
      const known = templates.some((t) => t.pattern.test(bare));
      if (response.status !== (known ? 405 : 404)) throw new Error(`${where}: no operation in the document, so ${known ? 405 : 404} was due`);
      const validate = ajv.getSchema(`${DOC_ID}#/components/schemas/ErrorBody`);
      if (!validate) throw new Error('the document has no components/schemas/ErrorBody');
      if (!validate(response.body)) throw new Error(`${where}: ${ajv.errorsText(validate.errors)}; body ${response.text.slice(0, 300)}`);
      return;
    }
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
    if (type !== 'application/json' || asked === 'HEAD') return;
    const ref = `${DOC_ID}#/${pointer('paths', match.template, method.toLowerCase(), 'responses', String(response.status), 'content', type, 'schema')}`;
    const validate = ajv.getSchema(ref);
    if (!validate) throw new Error(`${where}: no schema at ${ref}`);
    if (!validate(response.body)) throw new Error(`${where}: ${ajv.errorsText(validate.errors)}; body ${response.text.slice(0, 300)}`);
  };
}
