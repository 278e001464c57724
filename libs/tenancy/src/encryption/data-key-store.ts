/** A session's data key as stored: wrapped by the key provider, or destroyed. */
export interface StoredDataKey {
  keyId: string;
  tenantId: string;
  sessionId: string;
  /** null once shredded. */
  wrapped: string | null;
  createdAt: string;
  shreddedAt: string | null;
  shreddedBy: string | null;
}

export interface ShreddedKey {
  keyId: string;
  sessionId: string;
}

/**
 * Per-session data keys (a tenant's data is the union of its sessions'). Shredding overwrites
 * the wrapped key: every value encrypted with it is unreadable from then on, everywhere.
 */
export interface DataKeyStore {
  byId(keyId: string): Promise<StoredDataKey | null>;
  forSession(tenantId: string, sessionId: string): Promise<StoredDataKey | null>;
  /** Stores a new key unless the session has one (then returns that one). */
  create(key: Omit<StoredDataKey, 'shreddedAt' | 'shreddedBy' | 'createdAt'>): Promise<StoredDataKey>;
  /** Destroys the keys of a session (or, without one, of the whole tenant); returns the ones that were live. */
  shred(tenantId: string, sessionId: string | null, actor: string): Promise<ShreddedKey[]>;
  close(): Promise<void>;
}
