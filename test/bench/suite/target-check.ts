/** What every report section's target checks share (report.ts and the sections kept apart from it). */
export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean | null;
  value: number | null;
}

/** The two stores every per-store target is checked on, with the name the report gives each. */
export const STORES = [
  ['postgres', 'PostgreSQL'],
  ['sqlite', 'SQLite'],
] as const;
