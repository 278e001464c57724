import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { NOT_AN_OBJECT } from '@rewind/contracts';
import { ApiError } from './api-error';

function flatten(errors: ValidationError[], parent = ''): { field: string; message: string }[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.entries(e.constraints ?? {}).map(([constraint, message]) =>
      // The error is the item's own (`steps.1`), not its stand-in's property.
      constraint === NOT_AN_OBJECT ? { field: parent, message: `${parent.replace(/\.(\d+)(?=\.|$)/g, '[$1]')} ${message}` } : { field, message },
    );
    return [...own, ...flatten(e.children ?? [], field)];
  });
}

const refuse = (details: { field: string; message: string }[]) =>
  new ApiError(400, 'validation_failed', `The request is not valid: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}.`, details);

/**
 * class-validator at the edge: unknown fields are refused, and every bad field is named. The raw
 * input was checked before (create-app.ts, a preValidation hook on params, query and body) for
 * what no DTO can describe: hostile nesting (class-transformer recurses and would overflow the
 * stack) and text the stores cannot hold; it is not scanned a second time here.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => refuse(flatten(errors)),
  });
}
