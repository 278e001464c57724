import { ADMIN_SCHEMAS } from './admin-schemas';
import { COMMON_SCHEMAS } from './common-schemas';
import { MEMORY_SCHEMAS } from './memory-schemas';
import type { JsonSchema } from './schema-builders';
import { SESSION_SCHEMAS } from './session-schemas';

export { orNull, ref, taggedUnion, type JsonSchema } from './schema-builders';

/**
 * Response and shared schemas the DTO decorators cannot express (unions, any JSON, nullable references),
 * one file per area; the order here is the order of the document's components.
 */
export const RESPONSE_SCHEMAS: Record<string, JsonSchema> = { ...COMMON_SCHEMAS, ...SESSION_SCHEMAS, ...MEMORY_SCHEMAS, ...ADMIN_SCHEMAS };
