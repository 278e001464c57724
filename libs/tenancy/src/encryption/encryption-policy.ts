/** Which fields a tenant always encrypts: per tool (paths in its input and output), per memory key. */
export interface EncryptionPolicies {
  tools: Record<string, { input: string[]; output: string[] }>;
  /** Memory keys whose values are encrypted. */
  memoryKeys: string[];
}

export interface EncryptionPolicyStore {
  policies(tenantId: string): Promise<EncryptionPolicies>;
  /** Replaces a tool's declared paths (both empty: no encryption for it). */
  setTool(tenantId: string, tool: string, paths: { input: string[]; output: string[] }): Promise<void>;
  setMemoryKey(tenantId: string, key: string, encrypted: boolean): Promise<void>;
}

export const EMPTY_POLICIES: EncryptionPolicies = { tools: {}, memoryKeys: [] };

/** A dotted path into a JSON body: names, no empty parts, nothing that reaches a prototype. */
export const FIELD_PATH = /^(?!.*(?:^|\.)(?:__proto__|constructor|prototype)(?:\.|$))[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/;

interface PolicyRow {
  kind: 'tool' | 'memory';
  name: string;
  paths: string;
}

/** Folds stored rows into the policies (shared by the SQLite and PostgreSQL adapters). */
export function policiesFrom(rows: readonly PolicyRow[]): EncryptionPolicies {
  const policies: EncryptionPolicies = { tools: {}, memoryKeys: [] };
  for (const row of rows) {
    if (row.kind === 'memory') policies.memoryKeys.push(row.name);
    else policies.tools[row.name] = JSON.parse(row.paths) as { input: string[]; output: string[] };
  }
  return policies;
}
