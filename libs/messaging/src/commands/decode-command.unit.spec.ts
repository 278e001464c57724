import { beforeAll, describe, expect, it } from 'vitest';
import { toCommand } from '@rewind/contracts';
import { signatureHeaders, type SigningKey } from '../signing/envelope-signature';
import { InMemoryKafkaSigningSecretStore } from '../signing/in-memory-signing-secret-store';
import { COMMAND_TYPES, type CommandAction } from './command-envelope';
import { CommandRejection } from './command-errors';
import { commandMessage } from './command-outcome';
import { decodeCommand, peekCommandId } from './decode-command';

const keys = new InMemoryKafkaSigningSecretStore();
let key: SigningKey;
let otherTenantKey: SigningKey;
beforeAll(async () => {
  key = await keys.create({ tenantId: 'acme' });
  otherTenantKey = await keys.create({ tenantId: 'globex' });
});

const envelope = (type: string, payload?: object, extra: object = {}) => ({
  commandId: 'cmd-1',
  type,
  tenantId: 'acme',
  sessionId: 'trip',
  ...(payload ? { payload } : {}),
  ...extra,
});

async function decode(value: object | string, signWith: SigningKey = key) {
  const raw = typeof value === 'string' ? value : JSON.stringify(value);
  return decodeCommand(raw, signatureHeaders(raw, signWith), keys);
}

async function rejection(promise: Promise<unknown>): Promise<CommandRejection> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CommandRejection) return error;
    throw error;
  }
  throw new Error('expected a CommandRejection');
}

describe('decodeCommand: every command type maps exactly like HTTP', () => {
  const cases: [string, object | undefined, CommandAction][] = [
    ['StartSession', { title: 'Lisbon', metadata: { a: 1 } }, { kind: 'start', input: { sessionId: 'trip', title: 'Lisbon', metadata: { a: 1 } } }],
    ['RecordMessage', { role: 'assistant', content: 'hi' }, { kind: 'execute', command: toCommand.recordMessage({ role: 'assistant', content: 'hi' }) }],
    [
      'StartToolCall',
      {
        toolCallId: 'c1',
        tool: 'book',
        input: { x: 1 },
        effect: { kind: 'reversible', compensation: { channel: 'http', target: 'http://x/{{output.id}}' } },
        confirmed: false,
      },
      {
        kind: 'execute',
        command: {
          type: 'StartToolCall',
          toolCallId: 'c1',
          tool: 'book',
          input: { x: 1 },
          effect: { kind: 'reversible', compensation: { channel: 'http', target: 'http://x/{{output.id}}' } },
          confirmed: false,
        },
      },
    ],
    [
      'SucceedToolCall',
      { toolCallId: 'c1', output: { id: 7 } },
      { kind: 'execute', command: { type: 'CompleteToolCall', toolCallId: 'c1', output: { id: 7 } } },
    ],
    [
      'FailToolCall',
      { toolCallId: 'c1', error: 'timeout', retryable: true },
      { kind: 'execute', command: { type: 'FailToolCall', toolCallId: 'c1', error: 'timeout', retryable: true } },
    ],
    ['WriteMemory', { key: 'city', value: 'Lisbon' }, { kind: 'execute', command: { type: 'WriteMemory', key: 'city', value: 'Lisbon' } }],
    [
      'RecordSteps',
      {
        steps: [
          { kind: 'message', role: 'user', content: 'hi' },
          { kind: 'tool-result', toolCallId: 'c1', output: { id: 7 } },
          { kind: 'memory', key: 'city', value: 'Lisbon' },
        ],
      },
      {
        kind: 'steps',
        commands: [
          { type: 'RecordMessage', role: 'user', content: 'hi' },
          { type: 'CompleteToolCall', toolCallId: 'c1', output: { id: 7 } },
          { type: 'WriteMemory', key: 'city', value: 'Lisbon' },
        ],
      },
    ],
    ['EraseMemory', { key: 'city' }, { kind: 'execute', command: { type: 'EraseMemory', key: 'city' } }],
    ['SetContextVariable', { name: 'lang', value: 'pt' }, { kind: 'execute', command: { type: 'SetContextVariable', name: 'lang', value: 'pt' } }],
    ['PushTask', { title: 'find hotel', taskId: 't1' }, { kind: 'execute', command: { type: 'PushTask', title: 'find hotel', taskId: 't1' } }],
    ['PopTask', undefined, { kind: 'execute', command: { type: 'PopTask' } }],
    [
      'InterruptTurn',
      { turnId: 'u1', partialContent: 'Here are' },
      { kind: 'execute', command: { type: 'InterruptTurn', turnId: 'u1', partialContent: 'Here are' } },
    ],
    [
      'RecordThought',
      { content: 'search first', steps: ['dates', 'hotels'], turnId: 'u1' },
      { kind: 'execute', command: { type: 'RecordThought', content: 'search first', steps: ['dates', 'hotels'], turnId: 'u1' } },
    ],
    ['CreateCheckpoint', { label: 'before booking' }, { kind: 'execute', command: { type: 'CreateCheckpoint', label: 'before booking' } }],
    [
      'Rollback',
      { toCheckpoint: 'before booking' },
      { kind: 'execute', command: { type: 'MoveHead', kind: 'rollback', toCheckpoint: 'before booking', acknowledgeIrreversible: false } },
    ],
    [
      'Rollback',
      { toVersion: 2, dryRun: true },
      { kind: 'plan', command: { type: 'MoveHead', kind: 'rollback', toVersion: 2, acknowledgeIrreversible: false } },
    ],
    ['Undo', { steps: 2 }, { kind: 'execute', command: { type: 'MoveHead', kind: 'undo', steps: 2, acknowledgeIrreversible: false } }],
    ['Undo', undefined, { kind: 'execute', command: { type: 'MoveHead', kind: 'undo', steps: 1, acknowledgeIrreversible: false } }],
    ['Redo', { acknowledgeIrreversible: true }, { kind: 'execute', command: { type: 'MoveHead', kind: 'redo', acknowledgeIrreversible: true } }],
  ];

  it('covers all 16 types', () => {
    expect(new Set(cases.map(([type]) => type))).toEqual(new Set(COMMAND_TYPES));
    expect(COMMAND_TYPES).toHaveLength(17);
  });

  for (const [type, payload, action] of cases) {
    it(`${type} ${payload ? JSON.stringify(payload).slice(0, 60) : '(no payload)'}`, async () => {
      const decoded = await decode(envelope(type, payload, { expectedVersion: 3 }));
      expect(decoded.action).toEqual(action);
      expect(decoded.envelope).toMatchObject({ commandId: 'cmd-1', type, tenantId: 'acme', sessionId: 'trip', expectedVersion: 3 });
      expect(decoded.key.keyId).toBe(key.keyId);
    });
  }

  it('accepts what commandMessage() builds for a producer', async () => {
    const message = commandMessage({ commandId: 'c-9', type: 'PopTask', tenantId: 'acme', sessionId: 'trip' }, key);
    expect(message.key).toBe('trip');
    expect((await decodeCommand(message.value, message.headers, keys)).envelope.commandId).toBe('c-9');
  });
});

describe('decodeCommand refuses what HTTP refuses, naming each field', () => {
  it('not JSON', async () => {
    const r = await rejection(decode('{"commandId": '));
    expect(r.code).toBe('invalid_json');
    expect(r.message).toMatch(/not valid JSON/);
  });

  it('not an object', async () => {
    expect((await rejection(decode('[1,2]'))).code).toBe('validation_failed');
  });

  it('bad envelope fields and unknown envelope fields', async () => {
    const r = await rejection(decode({ commandId: 'has space', type: 'PopTask', tenantId: 'acme', sessionId: 'trip', expectedVersion: -1, extra: 1 }));
    expect(r.code).toBe('validation_failed');
    expect(r.details.map((d) => d.field).sort()).toEqual(['commandId', 'expectedVersion', 'extra']);
    expect(r.status).toBe(400);
  });

  it('payload fields, with the same messages as HTTP', async () => {
    const r = await rejection(decode(envelope('RecordMessage', { role: 'robot', content: 5, bogus: true })));
    expect(r.code).toBe('validation_failed');
    expect(r.details).toEqual(
      expect.arrayContaining([
        { field: 'payload.role', message: expect.stringContaining('role must be one of the following values') },
        { field: 'payload.content', message: expect.stringContaining('content must be') },
        { field: 'payload.bogus', message: expect.stringContaining('should not exist') },
      ]),
    );
    expect(r.message).toMatch(/^The command is not valid: .*payload\.role/);
  });

  it('steps of a RecordSteps, by index', async () => {
    const r = await rejection(decode(envelope('RecordSteps', { steps: [{ kind: 'message', role: 'user', content: 'ok' }, { kind: 'teleport' }] })));
    expect(r.code).toBe('validation_failed');
    expect(r.details.map((d) => d.field)).toContain('payload.steps.1.kind');
  });

  it('text PostgreSQL cannot hold and hostile nesting, refused by field before any transformation, like HTTP', async () => {
    const nul = await rejection(decode(envelope('RecordMessage', { role: 'user', content: 'a\u0000b' })));
    expect(nul.code).toBe('validation_failed');
    expect(nul.details.map((d) => d.field)).toEqual(['payload.content']);
    // Written as text: a producer in another language can send what JSON.stringify here would not.
    const deep = '['.repeat(5000) + '"x"' + ']'.repeat(5000);
    const raw = JSON.stringify(envelope('WriteMemory', { key: 'k', value: 'DEEP' })).replace('"DEEP"', deep);
    const nested = await rejection(decode(raw));
    expect(nested.code).toBe('validation_failed');
    expect(nested.details[0]!.field).toMatch(/^payload\.value/);
  });

  it('nested payload fields', async () => {
    const r = await rejection(decode(envelope('StartToolCall', { toolCallId: 'c1', tool: 'book', effect: { kind: 'magic' } })));
    expect(r.details).toEqual([{ field: 'payload.effect.kind', message: expect.stringContaining('kind must be one of') }]);
  });

  it('path parameters that went into the payload', async () => {
    expect((await rejection(decode(envelope('SucceedToolCall', { output: 1 })))).details).toEqual([
      { field: 'payload.toolCallId', message: expect.any(String) },
    ]);
    expect((await rejection(decode(envelope('WriteMemory', { key: '', value: 1 })))).details[0]!.field).toBe('payload.key');
    expect((await rejection(decode(envelope('PopTask', { anything: 1 })))).details[0]!.field).toBe('payload.anything');
  });

  it('rollback without exactly one target, like HTTP', async () => {
    const r = await rejection(decode(envelope('Rollback', {})));
    expect(r.code).toBe('validation_failed');
    expect(r.message).toMatch(/exactly one of toVersion and toCheckpoint/);
  });

  it('StartSession naming another session in its payload', async () => {
    expect((await rejection(decode(envelope('StartSession', { sessionId: 'other' })))).details[0]!.field).toBe('payload.sessionId');
    expect((await decode(envelope('StartSession', { sessionId: 'trip' }))).action.kind).toBe('start');
  });

  it('an unknown type, listing the known ones', async () => {
    const r = await rejection(decode(envelope('LaunchRocket', {})));
    expect(r.code).toBe('unknown_command_type');
    expect(r.message).toMatch(/StartSession, RecordMessage/);
  });
});

describe('decodeCommand authenticates before it trusts anything', () => {
  const value = JSON.stringify(envelope('PopTask'));

  it('refuses a missing, unknown, revoked or wrong signature', async () => {
    expect((await rejection(decodeCommand(value, {}, keys))).code).toBe('unauthenticated');
    expect((await rejection(decodeCommand(value, { 'rewind-key-id': 'sk_nope', 'rewind-signature': 'v1=00' }, keys))).message).toMatch(
      /unknown, revoked or expired/,
    );
    const headers = signatureHeaders(value, key);
    expect((await rejection(decodeCommand(value.replace('trip', 'tri2'), headers, keys))).message).toMatch(/does not match the message value/);
    expect((await rejection(decodeCommand(value, { 'rewind-key-id': key.keyId }, keys))).message).toMatch(/no "rewind-signature" header/);
    const revoked = await keys.create({ tenantId: 'acme' });
    await keys.revoke(revoked.keyId);
    expect((await rejection(decodeCommand(value, signatureHeaders(value, revoked), keys))).code).toBe('unauthenticated');
  });

  it('accepts each replaced secret of a rotated key during its own grace period only, and refuses an expired key', async () => {
    const rotating = await keys.create({ tenantId: 'acme' });
    const oldHeaders = signatureHeaders(value, rotating);
    const graced = (await keys.rotate(rotating.keyId, 3600))!;
    expect((await decodeCommand(value, signatureHeaders(value, graced), keys)).action).toBeDefined();
    expect((await decodeCommand(value, oldHeaders, keys)).action).toBeDefined();
    // A second rotation with no grace ends the secret it replaces at once, not the first one's hour.
    await keys.rotate(rotating.keyId, 0);
    expect((await rejection(decodeCommand(value, signatureHeaders(value, graced), keys))).message).toMatch(/does not match the message value/);
    expect((await decodeCommand(value, oldHeaders, keys)).action).toBeDefined();
    const expired = await keys.create({ tenantId: 'acme', expiresAt: '2001-01-01T00:00:00Z' });
    expect((await rejection(decodeCommand(value, signatureHeaders(value, expired), keys))).message).toMatch(/unknown, revoked or expired/);
  });

  it("refuses a validly signed command for another tenant than the key's", async () => {
    const r = await rejection(decode(envelope('PopTask'), otherTenantKey));
    expect(r.code).toBe('unauthenticated');
    expect(r.status).toBe(401);
    expect(r.message).toMatch(/belongs to another tenant than "acme"/);
  });

  it('checks the signature before parsing: unsigned garbage is unauthenticated, not invalid_json', async () => {
    expect((await rejection(decodeCommand('not json', {}, keys))).code).toBe('unauthenticated');
  });
});

describe('peekCommandId', () => {
  it('finds a usable commandId in a broken command, or null', () => {
    expect(peekCommandId('{"commandId":"abc","type":1}')).toBe('abc');
    expect(peekCommandId('{"commandId":"a b"}')).toBeNull();
    expect(peekCommandId('nope')).toBeNull();
  });
});
