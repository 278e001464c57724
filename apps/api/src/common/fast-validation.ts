import { getMetadataStorage, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import type { ConstraintMetadata } from 'class-validator/types/metadata/ConstraintMetadata';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { TransformationType } from 'class-transformer';
import { RecordStepsDto, STEP_DTOS } from '@rewind/contracts';

/**
 * A fast path for request bodies (issue 26: class-transformer, class-validator and the pipe were
 * 9–24 % of the API's CPU under W4). It does what ValidationPipe does for a JSON body (build the
 * DTO as plainToInstance would, then check it as class-validator would with whitelist and
 * forbidNonWhitelisted) but only answers "valid": it runs class-validator's own constraint
 * functions from class-validator's own metadata, without building error objects, promises or
 * class-transformer's generic walk. Whatever it is unsure of (a rule it does not model, a key that
 * class-transformer treats specially, any failed rule) it leaves to the pipe, which then gives
 * the same answer and the same errors as before. fast-validation.unit.spec.ts checks on random
 * bodies that it accepts exactly what the pipe accepts, and builds the same DTO.
 *
 * (The OpenAPI document's schemas are not strict enough for this: they carry no patterns, no
 * lengths and allow extra properties, so a validator compiled from them would accept bodies the
 * DTOs refuse.)
 */

/** The fast path's "not sure": the caller falls back to the pipe. */
const UNSURE = Symbol('unsure');
type Unsure = typeof UNSURE;

type Constructor = new () => object;

interface PropertyPlan {
  name: string;
  /** IsOptional / ValidateIf: every one must hold for the rest to run. */
  conditions: ValidationMetadata[];
  /** IsDefined first, then the other constraints, as class-validator runs them. */
  checks: { metadata: ValidationMetadata; constraints: ConstraintMetadata[] }[];
  nested: boolean;
}

interface ClassPlan {
  target: Constructor;
  properties: PropertyPlan[];
  /** Properties with any validation metadata (the whitelist). */
  allowed: Set<string>;
  /** Properties class-transformer builds a nested class for (@Type). */
  types: Map<string, (options: object) => unknown>;
  /** Properties with a @Transform the fast path knows (built by `buildTransformed`). */
  transformed: Set<string>;
}

/** The @Transforms the fast path reproduces: RecordStepsDto.steps (toStepDtos: each item becomes the DTO of its kind). */
const KNOWN_TRANSFORMS = new Map<Constructor, Set<string>>([[RecordStepsDto as Constructor, new Set(['steps'])]]);

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
};

export class FastBodyValidator {
  private readonly plans = new Map<Constructor, ClassPlan | null>();

  /** The DTO the pipe would return for `body`, or undefined when the pipe must decide. */
  accept(target: Constructor, body: unknown): object | undefined {
    const plan = this.planOf(target);
    if (!plan || !isPlainObject(body)) return undefined;
    const built = this.build(plan, body);
    if (built === UNSURE) return undefined;
    return this.valid(built) === true ? built : undefined;
  }

  /** The plan of a class, or null when one of its rules is not modelled here. */
  private planOf(target: Constructor): ClassPlan | null {
    let plan = this.plans.get(target);
    if (plan === undefined) this.plans.set(target, (plan = compile(target)));
    return plan;
  }

  /** plainToInstance(target, body) for JSON bodies, or UNSURE. */
  private build(plan: ClassPlan, body: Record<string, unknown>): object | Unsure {
    const instance = new plan.target() as Record<string, unknown>;
    for (const key of Object.keys(body)) {
      // class-transformer skips these keys (and the pipe strips some): let it.
      if (key in plan.target.prototype) return UNSURE;
      const raw = body[key];
      let value: unknown;
      if (plan.transformed.has(key)) value = this.buildSteps(raw);
      else {
        const typeOf = plan.types.get(key);
        if (typeOf) {
          if (Array.isArray(raw)) return UNSURE;
          if (isPlainObject(raw)) {
            const nested = this.planOf(typeOf({ newObject: instance, object: body, property: key }) as Constructor);
            value = nested ? this.build(nested, raw) : UNSURE;
          } else value = raw;
        } else value = copyJson(raw);
      }
      if (value === UNSURE) return UNSURE;
      instance[key] = value;
    }
    return instance;
  }

  /** RecordStepsDto.steps: an array of objects whose kinds are known; anything else is refused, by the pipe. */
  private buildSteps(raw: unknown): unknown[] | Unsure {
    if (!Array.isArray(raw)) return UNSURE;
    const steps: unknown[] = [];
    for (const item of raw) {
      if (!isPlainObject(item)) return UNSURE;
      const kind = item.kind;
      if (typeof kind !== 'string' || !Object.hasOwn(STEP_DTOS, kind)) return UNSURE;
      const plan = this.planOf(STEP_DTOS[kind as keyof typeof STEP_DTOS] as Constructor);
      const step = plan ? this.build(plan, item) : UNSURE;
      if (step === UNSURE) return UNSURE;
      steps.push(step);
    }
    return steps;
  }

  /** class-validator's verdict on a built instance: true, false, or UNSURE. */
  private valid(instance: object): boolean | Unsure {
    const plan = this.planOf(instance.constructor as Constructor);
    if (!plan) return UNSURE;
    for (const key of Object.keys(instance)) if (!plan.allowed.has(key)) return false;
    const object = instance as Record<string, unknown>;
    for (const property of plan.properties) {
      const value = object[property.name];
      if (!property.conditions.every((c) => (c.constraints[0] as (o: object, v: unknown) => boolean)(instance, value))) continue;
      for (const { metadata, constraints } of property.checks) {
        for (const constraint of constraints) {
          const args = { targetName: plan.target.name, property: metadata.propertyName, object: instance, value, constraints: metadata.constraints };
          const values = metadata.each && Array.isArray(value) ? value : [value];
          for (const v of values) {
            const verdict = constraint.instance.validate(v, args) as unknown;
            if (verdict !== true && verdict !== false) return UNSURE;
            if (!verdict) return false;
          }
        }
      }
      if (property.nested && value !== undefined) {
        const verdict = this.validNested(value);
        if (verdict !== true) return verdict;
      }
    }
    return true;
  }

  private validNested(value: unknown): boolean | Unsure {
    if (Array.isArray(value)) {
      for (const item of value) {
        const verdict = this.validNested(item);
        if (verdict !== true) return verdict;
      }
      return true;
    }
    // A plain object has no rules: class-validator refuses it as an unknown value.
    if (value instanceof Object) return isPlainObject(value) ? false : this.valid(value);
    return false;
  }
}

const MODELLED = new Set<string>([
  ValidationTypes.CUSTOM_VALIDATION,
  ValidationTypes.NESTED_VALIDATION,
  ValidationTypes.CONDITIONAL_VALIDATION,
  ValidationTypes.IS_DEFINED,
  ValidationTypes.WHITELIST,
]);

function compile(target: Constructor): ClassPlan | null {
  const storage = getMetadataStorage();
  // As the pipe asks: no groups, not "always", not strict.
  const metadatas = storage.getTargetValidationMetadatas(target, undefined as unknown as string, false, false, undefined);
  if (metadatas.length === 0) return null;
  if (metadatas.some((m) => !MODELLED.has(m.type) || (m as { validateIf?: unknown }).validateIf !== undefined)) return null;
  // class-transformer: nothing exposed, excluded or renamed; only the @Types and @Transforms modelled here.
  if (defaultMetadataStorage.getStrategy(target) !== 'none') return null;
  if (defaultMetadataStorage.getExposedMetadatas(target).length > 0 || defaultMetadataStorage.getExcludedMetadatas(target).length > 0) return null;
  const grouped = storage.groupByPropertyName(metadatas);
  const properties: PropertyPlan[] = [];
  const types = new Map<string, (options: object) => unknown>();
  const transformed = new Set<string>();
  for (const [name, group] of Object.entries(grouped)) {
    const checks: PropertyPlan['checks'] = [];
    for (const metadata of [
      ...group.filter((m) => m.type === ValidationTypes.IS_DEFINED),
      ...group.filter((m) => m.type === ValidationTypes.CUSTOM_VALIDATION),
    ]) {
      const constraints = storage.getTargetValidatorConstraints(metadata.constraintCls);
      if (constraints.some((c) => c.async)) return null;
      checks.push({ metadata, constraints });
    }
    properties.push({
      name,
      conditions: group.filter((m) => m.type === ValidationTypes.CONDITIONAL_VALIDATION),
      checks,
      nested: group.some((m) => m.type === ValidationTypes.NESTED_VALIDATION),
    });
    const type = defaultMetadataStorage.findTypeMetadata(target, name);
    if (type) {
      if (type.options?.discriminator || !type.typeFunction) return null;
      types.set(name, type.typeFunction as (options: object) => unknown);
    }
    if (defaultMetadataStorage.findTransformMetadatas(target, name, TransformationType.PLAIN_TO_CLASS).length > 0) {
      if (!KNOWN_TRANSFORMS.get(target)?.has(name)) return null;
      transformed.add(name);
    }
  }
  return { target, properties, allowed: new Set(Object.keys(grouped)), types, transformed };
}

/** class-transformer's copy of a JSON value with no @Type (plain objects and arrays copied), or UNSURE. */
function copyJson(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    for (const item of value) {
      const v = copyJson(item);
      if (v === UNSURE) return UNSURE;
      copy.push(v);
    }
    return copy;
  }
  if (!isPlainObject(value)) return UNSURE;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key in Object.prototype) return UNSURE;
    const v = copyJson(value[key]);
    if (v === UNSURE) return UNSURE;
    copy[key] = v;
  }
  return copy;
}
