import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;

const DOCUMENT_ID = 'https://rewind.local/openapi.json';

interface Route {
  method: string;
  pattern: RegExp;
  /** Literal segments first: `/tasks/top` wins over `/tasks/{id}`. */
  params: number;
  operationId: string;
  responses: Json;
}

export interface ResponseValidatorOptions {
  /**
   * Refuse properties the document does not declare (every object schema with `properties` and no
   * `additionalProperties` is checked as closed), as strict generated clients do: OpenAPI
   * Generator's okhttp-gson Java client throws on a field its model does not know.
   */
  refuseUndeclared?: boolean;
}

/**
 * Checks each HTTP answer against docs/openapi.json (the committed document, which a test keeps
 * equal to what the app serves): the status must be documented for the operation, and the body
 * must match that status's schema. Paths the document does not describe (/docs, /ui) pass.
 */
export class OpenApiResponseValidator {
  private readonly ajv: Ajv2020;
  private readonly routes: Route[];
  private readonly compiled = new Map<string, ValidateFunction>();

  private readonly refuseUndeclared: boolean;

  constructor(
    private readonly document: Json = JSON.parse(readFileSync(committedDocumentPath(), 'utf8')),
    options: ResponseValidatorOptions = {},
  ) {
    this.refuseUndeclared = options.refuseUndeclared ?? false;
    // strict: false ignores the annotation keywords OpenAPI adds (example, discriminator); validation is unchanged.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: this.closed(document.components.schemas as Json) } });
    this.routes = Object.entries(document.paths as Json).flatMap(([path, item]) =>
      Object.entries(item as Json).map(([method, operation]) => ({
        method: method.toUpperCase(),
        pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        params: (path.match(/\{/g) ?? []).length,
        operationId: operation.operationId as string,
        responses: operation.responses as Json,
      })),
    );
    this.routes.sort((a, b) => a.params - b.params);
  }

  /** Why the answer does not match the document, or null when it does (or the path is not an API operation). */
  check(method: string, url: string, status: number, contentType: string | null, body: unknown): string | null {
    const path = url.split('?')[0]!;
    const route = this.routes.find((r) => r.method === method.toUpperCase() && r.pattern.test(path));
    if (!route) return null;
    let response = route.responses[String(status)] as Json | undefined;
    if (!response) {
      return `${method} ${path} (${route.operationId}) answered ${status}, which the OpenAPI document does not list (it lists ${Object.keys(route.responses).join(', ')}). Body: ${JSON.stringify(body).slice(0, 300)}`;
    }
    if (typeof response.$ref === 'string') response = this.resolve(response.$ref);
    const content = response.content as Json | undefined;
    if (!content) return null;
    if (content['text/plain']) return typeof body === 'string' ? null : `${method} ${path} (${route.operationId}) ${status}: expected text.`;
    if (!/json/.test(contentType ?? '')) return `${method} ${path} (${route.operationId}) ${status}: expected a JSON body, got content-type ${contentType}.`;
    const validate = this.validatorFor(`${route.operationId} ${status}`, content['application/json'].schema as Json);
    if (validate(body)) return null;
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message}`).slice(0, 8);
    return `${method} ${path} (${route.operationId}) ${status}: the body does not match the OpenAPI document: ${errors.join('; ')}. Body: ${JSON.stringify(body).slice(0, 500)}`;
  }

  /** The schema as checked: a copy with every object closed when undeclared properties are refused. */
  private closed(schema: Json): Json {
    return this.refuseUndeclared ? closeObjects(structuredClone(schema)) : schema;
  }

  private resolve(pointer: string): Json {
    return pointer
      .replace(/^#\//, '')
      .split('/')
      .reduce<Json>((node, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.document);
  }

  private validatorFor(key: string, schema: Json): ValidateFunction {
    let validate = this.compiled.get(key);
    if (!validate) {
      const rooted = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`)) as Json;
      validate = this.ajv.compile(this.closed(rooted));
      this.compiled.set(key, validate);
    }
    return validate;
  }
}

/** Marks every object schema that lists its properties (and says nothing of others) as closed; the document has no allOf to break. */
function closeObjects(node: unknown): Json {
  if (Array.isArray(node)) node.forEach(closeObjects);
  else if (node !== null && typeof node === 'object') {
    const schema = node as Json;
    for (const [key, child] of Object.entries(schema)) if (key !== 'example' && key !== 'examples' && key !== 'properties') closeObjects(child);
    if (schema.properties && typeof schema.properties === 'object') {
      Object.values(schema.properties as Json).forEach(closeObjects);
      if (schema.additionalProperties === undefined && schema.patternProperties === undefined) schema.additionalProperties = false;
    }
  }
  return node as Json;
}

/** docs/openapi.json of this checkout, from the sources or from their compiled copy in dist/. */
export function committedDocumentPath(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'docs/openapi.json');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`docs/openapi.json not found above ${from}: run npm run openapi.`);
  }
}

let shared: OpenApiResponseValidator | undefined;
/** One validator per test file (the document is read and compiled once). */
export const responseValidator = (): OpenApiResponseValidator => (shared ??= new OpenApiResponseValidator());
