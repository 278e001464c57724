import { beforeAll, describe, expect, it } from 'vitest';
import { AsyncApiContract } from './asyncapi-contract';

describe('AsyncApiContract (docs/asyncapi.yaml through @asyncapi/parser)', () => {
  let contract: AsyncApiContract;
  beforeAll(async () => {
    contract = await AsyncApiContract.load();
  });

  const applied = {
    commandId: 'c-1',
    status: 'applied',
    result: {
      sessionId: 'trip-42',
      version: 2,
      head: 2,
      stepVersion: 2,
      status: 'active',
      duplicate: false,
      events: [{ eventId: 'e-1', type: 'UserMessageReceived', streamVersion: 2, parentVersion: 1, step: true }],
    },
    source: { topic: 'rewind.commands', partition: 0, offset: '1' },
  };
  const resultHeaders = { status: 'applied', 'content-type': 'application/json', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };

  it('passes a message as the document describes it, traceparent included', () => {
    expect(contract.check('commandResults', { key: 'c-1', value: JSON.stringify(applied), headers: resultHeaders })).toBeNull();
  });

  it('names what is wrong: a status outside the enum, a malformed traceparent, a field of the wrong type', () => {
    const problem = contract.check('commandResults', {
      key: 'c-1',
      value: JSON.stringify({ ...applied, status: 'maybe', result: { ...applied.result, stepVersion: 'two' } }),
      headers: { ...resultHeaders, traceparent: 'not-a-trace' },
    });
    expect(problem).toMatch(/headers\/traceparent must match pattern/);
    expect(problem).toMatch(/payload\/status must be equal to one of the allowed values/);
    expect(problem).toMatch(/payload\/result\/stepVersion must be integer,null/);
  });

  it('reads a dead letter as the raw value it is, with its reason in headers', () => {
    const headers = {
      'error-code': 'invalid_json',
      'error-message': 'not JSON',
      'original-topic': 'rewind.commands',
      'original-partition': '0',
      'original-offset': '4',
    };
    expect(contract.check('commandsDlq', { key: null, value: '{not json', headers })).toBeNull();
    expect(contract.check('commandsDlq', { key: null, value: '{not json', headers: { 'error-code': 'invalid_json' } })).toMatch(
      /must have required property 'error-message'/,
    );
  });
});
