import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { NOT_AN_OBJECT } from '@rewind/contracts';
import { ApiError } from './api-error';
import { FastBodyValidator } from './fast-validation';

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

type RuleLookup = (target: unknown, schema: string | undefined, always: boolean, strictGroups: boolean, groups?: string[]) => ValidationMetadata[];
const REMEMBERS = Symbol('rewind.remembersRules');

/**
 * class-validator looks a class's rules up on every validation, for every nested object, by
 * scanning the rules of every class it knows (an `instanceof` per class for inheritance): 4.8 %
 * of the API's CPU samples while it took a turn per request under W4's load (issue 26). Rules
 * only change when a decorator registers one (as DTO modules load), so each answer is kept per
 * class and options and all are dropped when a rule is added: the same rules, the same errors.
 */
export function rememberValidationRules(): void {
  const storage = getMetadataStorage() as unknown as {
    getTargetValidationMetadatas: RuleLookup;
    addValidationMetadata(metadata: ValidationMetadata): void;
    [REMEMBERS]?: true;
  };
  if (storage[REMEMBERS]) return;
  storage[REMEMBERS] = true;
  const lookUp = storage.getTargetValidationMetadatas.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);
  let known = new Map<unknown, Map<string, ValidationMetadata[]>>();
  storage.addValidationMetadata = (metadata) => {
    known = new Map();
    add(metadata);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema ?? ''}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0000') ?? ''}`;
    let byOptions = known.get(target);
    if (!byOptions) known.set(target, (byOptions = new Map()));
    let rules = byOptions.get(key);
    if (!rules) byOptions.set(key, (rules = lookUp(target, schema, always, strictGroups, groups)));
    return rules;
  };
}

/** The pipe, with the fast path first for bodies (fast-validation.ts): what it is not sure of, the pipe decides. */
class RewindValidationPipe extends ValidationPipe {
  private readonly fast = new FastBodyValidator();

  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && typeof metadata.metatype === 'function') {
      const dto = this.fast.accept(metadata.metatype as new () => object, value);
      if (dto !== undefined) return Promise.resolve(dto);
    }
    return super.transform(value, metadata) as Promise<unknown>;
  }
}

/**
 * class-validator at the edge: unknown fields are refused, and every bad field is named. The raw
 * input was checked before (create-app.ts, a preValidation hook on params, query and body) for
 * what no DTO can describe: hostile nesting (class-transformer recurses and would overflow the
 * stack) and text the stores cannot hold; it is not scanned a second time here.
 */
export function createValidationPipe(): ValidationPipe {
  rememberValidationRules();
  return new RewindValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => refuse(flatten(errors)),
  });
}
