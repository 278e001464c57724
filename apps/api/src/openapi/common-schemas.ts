import { ERROR_CODES } from '@rewind/contracts';
import { array, obj, oneOf, ref, str, type JsonSchema } from './schema-builders';

/** Schemas every tag shares: any JSON value, and the error shape of every refusal. */
export const COMMON_SCHEMAS: Record<string, JsonSchema> = {
  JsonValue: {
    description: 'Any JSON value: object, array, string, number, boolean or null.',
    examples: ['Lisbon', { city: 'Lisbon', nights: 3 }, [1, 2], null],
  },
  ErrorDetail: {
    type: 'object',
    description: 'One thing wrong with the request: the field (dotted path, header or parameter name) and what is wrong; more keys may add context.',
    properties: { field: str({ example: 'steps.1.content' }), message: str({ example: 'must be a string' }) },
    required: ['message'],
    additionalProperties: true,
  },
  ErrorResponse: {
    type: 'object',
    description: 'Every refusal: what happened, why, and what to do. Nothing was persisted.',
    properties: {
      error: obj({
        code: oneOf(ERROR_CODES, 'Stable, machine-readable: switch on it. New codes may be added in later versions.'),
        message: str({ description: 'For people: what happened and what to do.', example: 'No such session for this tenant.' }),
        details: array(ref('ErrorDetail')),
      }),
    },
    required: ['error'],
    example: { error: { code: 'validation_failed', message: 'content must be a string', details: [{ field: 'content', message: 'must be a string' }] } },
  },
};
