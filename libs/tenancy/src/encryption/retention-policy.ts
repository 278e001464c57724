/** A tenant's retention: sessions with no event for `inactiveDays` are exported, then shredded. */
export interface RetentionPolicy {
  tenantId: string;
  inactiveDays: number;
}

export interface RetentionPolicyStore {
  retentionPolicies(): Promise<RetentionPolicy[]>;
  /** Sets a tenant's policy; null removes it. */
  setRetention(tenantId: string, inactiveDays: number | null): Promise<void>;
}
