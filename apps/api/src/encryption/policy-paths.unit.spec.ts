import { describe, expect, it } from 'vitest';
import { EMPTY_POLICIES, type EncryptionPolicies } from '@rewind/tenancy';
import { policyPaths } from './policy-paths';

const policies: EncryptionPolicies = { tools: { kyc: { input: ['ssn'], output: ['card.number'] } }, memoryKeys: ['passport'] };

describe('policyPaths', () => {
  it('maps tool calls, results, memory writes and batches to the body paths their policies declare', async () => {
    const toolOf = async (callId: string) => (callId === 'c1' ? 'kyc' : null);
    expect(await policyPaths('/v1/sessions/:id/tool-calls', {}, { tool: 'kyc', input: {} }, policies, toolOf)).toEqual(['input.ssn']);
    expect(await policyPaths('/v1/sessions/:id/tool-calls', {}, { tool: 'search', input: {} }, policies, toolOf)).toEqual([]);
    // A proposal carries the call's input: it is encrypted the same way.
    expect(await policyPaths('/v1/sessions/:id/proposals', {}, { tool: 'kyc', input: {} }, policies, toolOf)).toEqual(['input.ssn']);
    expect(await policyPaths('/v1/sessions/:id/tool-calls/:callId/succeed', { callId: 'c1' }, { output: {} }, policies, toolOf)).toEqual([
      'output.card.number',
    ]);
    expect(await policyPaths('/v1/sessions/:id/memory/:key', { key: 'passport' }, { value: 1 }, policies, toolOf)).toEqual(['value']);
    expect(await policyPaths('/v1/sessions/:id/memory/:key', { key: 'city' }, { value: 1 }, policies, toolOf)).toEqual([]);
    const steps = [
      { kind: 'tool-call', toolCallId: 'c2', tool: 'kyc' },
      { kind: 'tool-result', toolCallId: 'c2' },
      { kind: 'tool-result', toolCallId: 'c1' },
      { kind: 'memory', key: 'passport' },
      { kind: 'message' },
    ];
    expect(await policyPaths('/v1/sessions/:id/steps', {}, { steps }, policies, toolOf)).toEqual([
      'steps.0.input.ssn',
      'steps.1.output.card.number',
      'steps.2.output.card.number',
      'steps.3.value',
    ]);
  });

  it('reads no state when the tenant declares nothing', async () => {
    let reads = 0;
    const toolOf = async () => (reads++, 'kyc');
    expect(await policyPaths('/v1/sessions/:id/tool-calls/:callId/succeed', { callId: 'c1' }, { output: {} }, EMPTY_POLICIES, toolOf)).toEqual([]);
    expect(
      await policyPaths('/v1/sessions/:id/tool-calls/:callId/succeed', { callId: 'c1' }, { output: {} }, { tools: {}, memoryKeys: ['x'] }, toolOf),
    ).toEqual([]);
    expect(reads).toBe(0);
  });
});
