import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/** The largest integer JavaScript (and so every store's version column) holds exactly. */
export const MAX_WHOLE_NUMBER = Number.MAX_SAFE_INTEGER;

/**
 * A whole-number query parameter, parsed strictly: only digits become a number; anything else
 * ("abc", "1.5", "1e308", "0x10", a repeated parameter) stays as given and is refused as not a
 * whole number. A number past `max` is refused by name, never handed to a store.
 */
export function WholeNumberQuery(name: string, { min = 1, max = MAX_WHOLE_NUMBER }: { min?: number; max?: number } = {}): PropertyDecorator {
  // Applied in this order, so checked in this order; only the first failure is reported.
  const decorators: PropertyDecorator[] = [
    IsInt({
      message: ({ value }) => (value === undefined ? `${name} is required, e.g. ${name}=${min}` : `${name} must be a whole number, e.g. ${name}=${min}`),
    }),
    Min(min, { message: `${name} must be at least ${min}` }),
    Max(max, { message: `${name} must be at most ${max}` }),
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^[+-]?\d{1,400}$/.test(value) ? Number(value) : value), {
      toClassOnly: true,
    }),
  ];
  return (target, property) => decorators.forEach((decorate) => decorate(target, property));
}
