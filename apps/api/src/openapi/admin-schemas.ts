import { API_KEY_SCOPES } from '@rewind/tenancy';
import { ANY_JSON, array, bool, int, obj, oneOf, orNull, ref, str, tag, type JsonSchema } from './schema-builders';

/** Tools, health, components, shredding, keys, encryption and audit. */
export const ADMIN_SCHEMAS: Record<string, JsonSchema> = {
  Tool: obj({ name: str({ example: 'book_hotel' }), effect: ref('Effect'), version: int(), registeredAt: str({ format: 'date-time' }), registeredBy: str() }),
  ToolList: obj({ items: array(ref('Tool')) }),
  Health: obj({ status: tag('ok'), store: obj({ reachable: bool('The event store answered.') }) }),
  Liveness: obj({ status: tag('ok') }),
  Readiness: obj({
    status: tag('ready'),
    checks: array(obj({ name: str({ example: 'store' }), ok: bool(), detail: str() }), 'Each check and what it found.'),
  }),
  ComponentState: obj({ name: str({ example: 'itinerary' }), value: ANY_JSON, version: int('The session version the state was read at.') }),
  ShredResult: obj(
    {
      sessionId: str(),
      keysDestroyed: int('Data keys destroyed (0 when the session had none, or on a repeated shred).'),
      unreadableValues: int('Encrypted values in the session\'s events: all read "[shredded]" from now on.'),
      unreadableFields: array(
        obj({
          event: str({ example: 'MemoryWritten' }),
          path: str({ example: 'value', description: "Dotted path into the event's data; `[]` stands for any element of an array." }),
          values: int(),
        }),
        'Where those values are, by event type and path.',
      ),
      nothingEncrypted: bool('True when no value was encrypted: the shred erased nothing readable, every field reads as before.'),
      message: str({ description: 'The same in one sentence.' }),
    },
    [],
    'What the shred destroyed and what it made unreadable. Crypto-shredding makes only encrypted fields unreadable: `nothingEncrypted` says so plainly when there were none.',
  ),
  ApiKey: obj(
    {
      keyId: str(),
      tenantId: str(),
      name: str(),
      scopes: array(oneOf(API_KEY_SCOPES)),
      createdAt: str({ format: 'date-time' }),
      expiresAt: orNull(str({ format: 'date-time', description: 'After this instant the key is refused; null: never.' })),
      revokedAt: orNull(str({ format: 'date-time' })),
      rotatedAt: orNull(str({ format: 'date-time' })),
      previousSecretValidUntil: orNull(str({ format: 'date-time', description: 'Until when the secret before the last rotation still works.' })),
    },
    [],
    'An API key without its secret.',
  ),
  ApiKeySecret: obj(
    { key: str({ description: 'The secret: send it as "Authorization: Bearer <key>". Shown in this answer only.', example: 'rwd_…' }), record: ref('ApiKey') },
    [],
    'A new secret and the key it belongs to.',
  ),
  ApiKeyList: obj({ items: array(ref('ApiKey')) }),
  SigningKey: obj(
    {
      keyId: str(),
      tenantId: str({ description: 'The one tenant whose commands the key may sign.' }),
      name: str(),
      createdAt: str({ format: 'date-time' }),
      revokedAt: orNull(str({ format: 'date-time' })),
      expiresAt: orNull(str({ format: 'date-time', description: 'After this instant commands signed with the key are refused; null: never.' })),
      previousSecretValidUntil: orNull(str({ format: 'date-time', description: 'Until when the secret before the last rotation still verifies.' })),
    },
    [],
    'A Kafka signing key without its secret.',
  ),
  SigningKeySecret: obj(
    {
      secret: str({ description: 'HMAC-SHA256 secret: sign each command value with it (docs/asyncapi.yaml). Shown in this answer only.' }),
      record: ref('SigningKey'),
    },
    [],
    'A new signing secret and the key it belongs to.',
  ),
  SigningKeyList: obj({ items: array(ref('SigningKey')) }),
  EncryptionPolicies: obj({
    tools: {
      type: 'object',
      description: 'By tool name: the dotted paths of its input and output that are encrypted.',
      additionalProperties: obj({ input: array(str()), output: array(str()) }),
    },
    memoryKeys: array(str(), 'Memory keys whose values are encrypted.'),
  }),
  ToolEncryption: obj({ tool: str(), input: array(str()), output: array(str()) }),
  MemoryKeyEncryption: obj({ key: str(), encrypted: bool() }),
  AuditVerification: obj({
    ok: bool(),
    checked: int('Events whose links were recomputed and matched (up to the first broken one).'),
    unsealed: int(
      'Events not covered yet: on SQLite and PostgreSQL only events written before the upgrade to links and not sealed yet (the API seals them when it starts); on EventStoreDB, events newer than the last seal (the sealer runs every second).',
    ),
    firstBroken: orNull(
      obj(
        {
          streamId: str(),
          streamVersion: orNull(int()),
          position: {
            ...orNull(int()),
            deprecated: true,
            description:
              "No longer sent: a position in the whole log tells how much every tenant writes. The stream and version name the event; an operator's `rewind audit verify` prints the position.",
          },
          problem: str(),
        },
        ['position'],
      ),
    ),
    digestMatches: orNull(bool('With expectedDigest: whether the sealed log still yields it.')),
    snapshotsChecked: int("Snapshots checked against their seals (a snapshot's seal binds its content to the link of the event at its version)."),
    snapshotsRejected: array(
      obj({ streamId: str(), version: int(), problem: str() }),
      'Snapshots whose seal does not hold: altered in the database. They are not served (reads replay the events); ok is false.',
    ),
    sessions: int('Sessions checked.'),
  }),
};
