import type { SessionService } from '@rewind/engine';
import { sessionPathOf, type SessionPath, type SessionPaths } from './session-paths';

/** Session paths read through the engine's public API (tenant-scoped: another tenant's session is not found). */
export class EngineSessionPaths implements SessionPaths {
  constructor(private readonly sessions: SessionService) {}

  async pathOf(tenantId: string, sessionId: string, at?: number): Promise<SessionPath> {
    const state = await this.sessions.getState({ tenantId, actor: 'memory' }, sessionId, at);
    return sessionPathOf(state);
  }
}
