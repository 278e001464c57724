/** How the edge should present a rejected command; the domain knows nothing of HTTP. */
export type DomainErrorKind = 'validation' | 'not_found' | 'conflict' | 'confirmation_required';

export interface ErrorDetail {
  field?: string;
  message: string;
  [key: string]: unknown;
}

/** A command the domain refuses. Nothing is persisted when it is thrown. */
export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (code: string, message: string, details?: ErrorDetail[]) => new DomainError('not_found', code, message, details);
export const conflict = (code: string, message: string, details?: ErrorDetail[]) => new DomainError('conflict', code, message, details);
export const invalid = (code: string, message: string, details?: ErrorDetail[]) => new DomainError('validation', code, message, details);

/** The refusal of one step among several (a batch, a fork's steps), named by its index: `steps[i]: …`, fields under `steps.i`. */
export function atStepIndex(error: DomainError, index: number): DomainError {
  const details = error.details.length > 0 ? error.details : [{ message: error.message }];
  return new DomainError(
    error.kind,
    error.code,
    `steps[${index}]: ${error.message}`,
    details.map((d) => ({ ...d, field: d.field ? `steps.${index}.${d.field}` : `steps.${index}` })),
  );
}
