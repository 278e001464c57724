import { isEncryptedValue } from './field-encryption';

/** One field of a session's events that held ciphertext: after a shred, what reads "[shredded]". */
export interface UnreadableField {
  /** The event type that holds it (e.g. `MemoryWritten`). */
  event: string;
  /** Dotted path into the event's data; `[]` stands for any element of an array (e.g. `steps[].input.ssn`). */
  path: string;
  /** How many values at that place were encrypted. */
  values: number;
}

/** What a shred made unreadable, said so that "nothing was encrypted" cannot be missed. */
export interface ShredReport {
  /** Encrypted values in the session's events, all unreadable once its keys are destroyed. */
  unreadableValues: number;
  unreadableFields: UnreadableField[];
  /** True when no value was encrypted: the shred erased nothing readable, the history reads as before. */
  nothingEncrypted: boolean;
}

function collect(value: unknown, path: string, found: (path: string) => void): void {
  if (isEncryptedValue(value)) {
    found(path);
    return;
  }
  if (Array.isArray(value)) {
    for (const element of value) collect(element, `${path}[]`, found);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, member] of Object.entries(value)) collect(member, path === '' ? key : `${path}.${key}`, found);
  }
}

function reportOf(fields: Iterable<UnreadableField>): ShredReport {
  const unreadableFields = [...fields];
  const unreadableValues = unreadableFields.reduce((sum, field) => sum + field.values, 0);
  return { unreadableValues, unreadableFields, nothingEncrypted: unreadableValues === 0 };
}

function add(fields: Map<string, UnreadableField>, event: string, path: string, values: number): void {
  const id = `${event}\u0000${path}`;
  const known = fields.get(id);
  fields.set(id, { event, path, values: (known?.values ?? 0) + values });
}

/** The encrypted fields of `events` (a session's whole stream), grouped by event type and path. */
export function shredReportOf(events: readonly { type: string; data: unknown }[]): ShredReport {
  const fields = new Map<string, UnreadableField>();
  for (const event of events) collect(event.data, '', (path) => add(fields, event.type, path === '' ? '(data)' : path, 1));
  return reportOf(fields.values());
}

/** The reports of a tenant's sessions as one. */
export function mergeShredReports(reports: readonly ShredReport[]): ShredReport {
  const fields = new Map<string, UnreadableField>();
  for (const field of reports.flatMap((r) => r.unreadableFields)) add(fields, field.event, field.path, field.values);
  return reportOf(fields.values());
}

/** The fields in words: `MemoryWritten value (1), MessageRecorded content (2)`. */
export function describeUnreadableFields(report: ShredReport, max = 10): string {
  const shown = report.unreadableFields.slice(0, max).map((f) => `${f.event} ${f.path} (${f.values})`);
  const more = report.unreadableFields.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more field(s)` : shown.join(', ');
}

/** One sentence on what a shred of `subject` (e.g. `session "s1"`) made unreadable, or that it made nothing unreadable. */
export function describeShred(subject: string, report: ShredReport): string {
  if (report.nothingEncrypted) {
    return (
      `Nothing in ${subject} was encrypted, so this shred erased nothing readable: every field reads as before ` +
      '(crypto-shredding makes only encrypted fields unreadable). To make fields shreddable, encrypt them as they are written ' +
      '(the Rewind-Encrypt header, or PUT /v1/encryption/tools/:name and /v1/encryption/memory-keys/:key).'
    );
  }
  return (
    `${report.unreadableValues} encrypted value(s) of ${subject} now read "[shredded]" on every read path: ${describeUnreadableFields(report)}. ` +
    'What was not encrypted (ids, event types, timestamps, fields not declared) reads as before.'
  );
}
