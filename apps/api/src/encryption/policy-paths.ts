import type { EncryptionPolicies } from '@rewind/tenancy';

/** The session routes a policy applies to (Fastify patterns). */
const TOOL_CALL = '/v1/sessions/:id/tool-calls';
/** A proposed call holds the same input as the call: encrypted the same, never stored in the clear. */
const PROPOSAL = '/v1/sessions/:id/proposals';
const TOOL_RESULT = '/v1/sessions/:id/tool-calls/:callId/succeed';
const MEMORY = '/v1/sessions/:id/memory/:key';
const STEPS = '/v1/sessions/:id/steps';

interface Step {
  kind?: unknown;
  tool?: unknown;
  toolCallId?: unknown;
  key?: unknown;
}

/**
 * The body paths a tenant's policies encrypt on this request: a registered tool's input paths
 * on its calls, its output paths on their results, a memory key's value. `toolOfCall` finds
 * the tool of an earlier call of the session (null: unknown).
 */
export async function policyPaths(
  route: string | undefined,
  params: Record<string, string>,
  body: unknown,
  policies: EncryptionPolicies,
  toolOfCall: (callId: string) => Promise<string | null>,
): Promise<string[]> {
  // Most tenants declare nothing: no state is read for them.
  if (policies.memoryKeys.length === 0 && Object.keys(policies.tools).length === 0) return [];
  const b = (body ?? {}) as Record<string, unknown>;
  const inputOf = (tool: unknown, prefix: string) => (typeof tool === 'string' ? (policies.tools[tool]?.input ?? []).map((p) => `${prefix}input.${p}`) : []);
  const outputOf = (tool: string | null, prefix: string) => (tool ? (policies.tools[tool]?.output ?? []).map((p) => `${prefix}output.${p}`) : []);
  switch (route) {
    case TOOL_CALL:
    case PROPOSAL:
      return inputOf(b.tool, '');
    case TOOL_RESULT:
      return Object.keys(policies.tools).length === 0 ? [] : outputOf(await toolOfCall(params.callId ?? ''), '');
    case MEMORY:
      return policies.memoryKeys.includes(params.key ?? '') ? ['value'] : [];
    case STEPS: {
      if (!Array.isArray(b.steps)) return [];
      const steps = b.steps as Step[];
      const paths: string[] = [];
      const batchTools = new Map<string, string>();
      for (const [i, step] of steps.entries()) {
        if (!step || typeof step !== 'object') continue;
        if (step.kind === 'tool-call') {
          if (typeof step.toolCallId === 'string' && typeof step.tool === 'string') batchTools.set(step.toolCallId, step.tool);
          paths.push(...inputOf(step.tool, `steps.${i}.`));
        } else if (step.kind === 'tool-result' && typeof step.toolCallId === 'string') {
          paths.push(...outputOf(batchTools.get(step.toolCallId) ?? (await toolOfCall(step.toolCallId)), `steps.${i}.`));
        } else if (step.kind === 'memory' && typeof step.key === 'string' && policies.memoryKeys.includes(step.key)) {
          paths.push(`steps.${i}.value`);
        }
      }
      return paths;
    }
    default:
      return [];
  }
}
