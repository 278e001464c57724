/** JSON Schema builders shared by the response schemas of every tag (and by operations.ts). */

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const str = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
export const int = (description?: string): JsonSchema => ({ type: 'integer', ...(description ? { description } : {}) });
export const bool = (description?: string): JsonSchema => ({ type: 'boolean', ...(description ? { description } : {}) });
export const array = (items: JsonSchema, description?: string): JsonSchema => ({ type: 'array', items, ...(description ? { description } : {}) });
export const oneOf = (values: readonly string[], description?: string): JsonSchema => ({
  type: 'string',
  enum: [...values],
  ...(description ? { description } : {}),
});
/** A discriminator's value in one member of a union: a one-value enum, which every generator reads (some ignore `const`). */
export const tag = (value: string): JsonSchema => ({ type: 'string', enum: [value] });
/** A union generated clients can read: `propertyName` names the member, through an explicit mapping. */
export function taggedUnion(propertyName: string, mapping: Record<string, string>): JsonSchema {
  return {
    oneOf: [...new Set(Object.values(mapping))].map(ref),
    discriminator: { propertyName, mapping: Object.fromEntries(Object.entries(mapping).map(([value, name]) => [value, `#/components/schemas/${name}`])) },
  };
}
/** `schema` or null (OpenAPI 3.1 has no `nullable`). */
export function orNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string')
    return { ...schema, type: [schema.type, 'null'], ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}) };
  return { anyOf: [schema, { type: 'null' }] };
}
/**
 * An enum that may be null: OpenAPI Generator's okhttp-gson Java client (7.17) checks a *required*
 * enum property without a null check and throws on null, so such properties are listed as optional
 * (they are always sent; null is still a documented value).
 */
const isNullableEnum = (schema: JsonSchema): boolean => Array.isArray(schema.enum) && schema.enum.includes(null);

/** An object whose listed properties are all required unless named in `optional` (or a nullable enum, see above); more properties may come in later versions. */
export function obj(properties: Record<string, JsonSchema>, optional: string[] = [], description?: string): JsonSchema {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    properties,
    required: Object.keys(properties).filter((name) => !optional.includes(name) && !isNullableEnum(properties[name]!)),
  };
}

/** Any JSON value (the JsonValue schema), and an object of them. */
export const ANY_JSON = ref('JsonValue');
export const JSON_OBJECT: JsonSchema = { type: 'object', additionalProperties: ANY_JSON };
