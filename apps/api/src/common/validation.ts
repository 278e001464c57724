import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { ApiError } from './api-error';

function flatten(errors: ValidationError[], parent = ''): { field: string; message: string }[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(e.children ?? [], field)];
  });
}

/** class-validator at the edge: unknown fields are refused, and every bad field is named. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => {
      const details = flatten(errors);
      return new ApiError(400, 'validation_failed', `The request is not valid: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}.`, details);
    },
  });
}
