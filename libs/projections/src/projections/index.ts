import { auditProjection } from './audit.projection';
import { ledgerProjection } from './ledger.projection';
import type { Projection } from './projection';
import { sessionsProjection } from './sessions.projection';

export * from './projection';
export { auditProjection, ledgerProjection, sessionsProjection };

/** Every projection, in the order they are listed and rebuilt. */
export const PROJECTIONS: readonly Projection[] = [sessionsProjection, ledgerProjection, auditProjection];
export const PROJECTION_NAMES: readonly string[] = PROJECTIONS.map((p) => p.name);

export class UnknownProjectionError extends Error {
  constructor(readonly names: string[]) {
    super(`Unknown projection${names.length > 1 ? 's' : ''} ${names.map((n) => `"${n}"`).join(', ')}: the projections are ${PROJECTION_NAMES.join(', ')}.`);
    this.name = 'UnknownProjectionError';
  }
}

/** The named projections (all when none are named), in canonical order. */
export function selectProjections(names: readonly string[] = []): Projection[] {
  const unknown = names.filter((n) => !PROJECTION_NAMES.includes(n));
  if (unknown.length > 0) throw new UnknownProjectionError(unknown);
  return names.length === 0 ? [...PROJECTIONS] : PROJECTIONS.filter((p) => names.includes(p.name));
}
