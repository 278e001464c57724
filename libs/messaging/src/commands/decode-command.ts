import { DEFAULT_JSON_COST_LIMITS, findUnsafeInput, jsonCostProblem, type JsonCostLimits } from '@rewind/contracts';
import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import type { ErrorDetail } from '@rewind/domain';
import { ID_PATTERN } from '@rewind/engine';
import { KEY_ID_HEADER, SIGNATURE_HEADER, verifySignature } from '../signing/envelope-signature';
import type { KafkaSigningSecretStore, SigningSecret } from '../signing/signing-secret-store';
import { COMMAND_SPECS, CommandEnvelopeDto, COMMAND_TYPES, type CommandAction, type CommandEnvelope, type CommandType } from './command-envelope';
import { classifyCommandError, CommandRejection } from './command-errors';

export interface DecodedCommand {
  envelope: CommandEnvelope;
  action: CommandAction;
  /** The signing key that authenticated the message (its tenant is the envelope's tenant). */
  key: SigningSecret;
}

/** The options the HTTP validation pipe uses (apps/api/src/common/validation.ts, with Nest's default forbidUnknownValues: false). */
const VALIDATION = { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: true, forbidUnknownValues: false } as const;

function flatten(errors: ValidationError[], parent: string): ErrorDetail[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(e.children ?? [], field)];
  });
}

async function validated<T extends object>(cls: new () => T, plain: object, parent: string): Promise<T> {
  const instance = plainToInstance(cls, plain, { enableImplicitConversion: false });
  const errors = await validate(instance, VALIDATION);
  if (errors.length > 0) {
    const details = flatten(errors, parent);
    throw new CommandRejection('validation_failed', `The command is not valid: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}.`, details);
  }
  return instance;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function unauthenticated(message: string): CommandRejection {
  return new CommandRejection(
    'unauthenticated',
    `${message} Sign the exact message value with HMAC-SHA256 and your tenant's signing secret, and send the headers ` +
      `"${KEY_ID_HEADER}: <keyId>" and "${SIGNATURE_HEADER}: v1=<hex>" (see docs/asyncapi.yaml).`,
    [],
    401,
  );
}

/** Checks the signature headers against the value, before anything in the value is trusted. */
export async function authenticate(value: string, headers: Record<string, string>, keys: KafkaSigningSecretStore): Promise<SigningSecret> {
  const keyId = headers[KEY_ID_HEADER];
  if (!keyId) throw unauthenticated(`The message has no "${KEY_ID_HEADER}" header.`);
  const key = await keys.find(keyId);
  if (!key) throw unauthenticated(`Signing key "${keyId.slice(0, 140)}" is unknown, revoked or expired.`);
  if (!headers[SIGNATURE_HEADER]) throw unauthenticated(`The message has no "${SIGNATURE_HEADER}" header.`);
  // During a rotation's grace period the replaced secret still verifies (producers redeploy meanwhile).
  const verified = [key.secret, ...key.previousSecrets].some((secret) => verifySignature(value, headers[SIGNATURE_HEADER], secret));
  if (!verified) {
    throw unauthenticated(
      `The "${SIGNATURE_HEADER}" header does not match the message value for key "${keyId}" (was the value changed after signing, or signed with another secret?).`,
    );
  }
  return key;
}

/**
 * Authenticates, parses and validates one command message exactly like HTTP validates a
 * request (the same DTO classes and the same DTO → command mapping). Throws
 * CommandRejection for anything that can never succeed.
 */
export async function decodeCommand(
  value: string,
  headers: Record<string, string>,
  keys: KafkaSigningSecretStore,
  costLimits: JsonCostLimits = DEFAULT_JSON_COST_LIMITS,
): Promise<DecodedCommand> {
  const key = await authenticate(value, headers, keys);
  // Before parsing: a command's cost stays linear in its size, as an HTTP body's does.
  const costly = jsonCostProblem(value, costLimits);
  if (costly)
    throw new CommandRejection('validation_failed', `The command is refused unread: ${costly.message}.`, [{ field: '(value)', message: costly.message }]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new CommandRejection('invalid_json', `The message value is not valid JSON: ${(error as Error).message}.`);
  }
  if (!isPlainObject(parsed)) {
    throw new CommandRejection(
      'validation_failed',
      'The message value must be a JSON object: {commandId, type, tenantId, sessionId, expectedVersion?, payload}.',
      [{ field: '(value)', message: 'must be a JSON object' }],
    );
  }
  if (typeof parsed.tenantId === 'string' && parsed.tenantId !== key.tenantId) {
    throw unauthenticated(
      `Signing key "${key.keyId}" belongs to another tenant than "${parsed.tenantId.slice(0, 140)}": a key may only send commands for its own tenant.`,
    );
  }
  // The same edge checks as HTTP (depth, NUL, lone surrogates) before any transformation.
  const unsafe = findUnsafeInput(parsed);
  if (unsafe)
    throw new CommandRejection('validation_failed', `The command is not valid: ${unsafe.message}.`, [{ field: unsafe.field, message: unsafe.message }]);
  const envelope = await validated(CommandEnvelopeDto, parsed, '');
  if (!(COMMAND_TYPES as string[]).includes(envelope.type)) {
    throw new CommandRejection('unknown_command_type', `"${envelope.type.slice(0, 140)}" is not a command type. Use one of: ${COMMAND_TYPES.join(', ')}.`, [
      { field: 'type', message: `must be one of ${COMMAND_TYPES.join(', ')}` },
    ]);
  }
  const type = envelope.type as CommandType;
  const spec = COMMAND_SPECS[type] as { payload: new () => object; action: (p: any, e: { sessionId: string }) => CommandAction };
  const payload = await validated(spec.payload, envelope.payload ?? {}, 'payload');
  if (
    type === 'StartSession' &&
    (payload as { sessionId?: string }).sessionId !== undefined &&
    (payload as { sessionId?: string }).sessionId !== envelope.sessionId
  ) {
    throw new CommandRejection('validation_failed', "The command is not valid: payload.sessionId must equal the envelope's sessionId (or be left out).", [
      { field: 'payload.sessionId', message: "must equal the envelope's sessionId" },
    ]);
  }
  let action: CommandAction;
  try {
    action = spec.action(payload, envelope);
  } catch (error) {
    const classified = classifyCommandError(error, { commandId: envelope.commandId });
    if (classified.permanent) throw classified.rejection;
    throw error;
  }
  return {
    envelope: {
      commandId: envelope.commandId,
      type,
      tenantId: envelope.tenantId,
      sessionId: envelope.sessionId,
      ...(envelope.expectedVersion !== undefined ? { expectedVersion: envelope.expectedVersion } : {}),
      ...(envelope.payload !== undefined ? { payload: envelope.payload as CommandEnvelope['payload'] } : {}),
    },
    action,
    key,
  };
}

/** The commandId of a message that could not be decoded, when it has a usable one (for its `rejected` result). */
export function peekCommandId(value: string): string | null {
  try {
    const parsed: unknown = JSON.parse(value);
    const id = isPlainObject(parsed) ? parsed.commandId : undefined;
    return typeof id === 'string' && ID_PATTERN.test(id) ? id : null;
  } catch {
    return null;
  }
}
