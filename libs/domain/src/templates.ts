import type { CompensationSpec } from './effects';
import type { JsonValue } from './json';

/** `{{input.a.b}}` or `{{output.id}}`: a compensation template refers to the call's input or output. */
const REF = /\{\{\s*((?:input|output)(?:\.[A-Za-z0-9_$-]+)*)\s*\}\}/g;
const ANY_BRACES = /\{\{(.*?)\}\}/g;

export interface TemplateProblem {
  [key: string]: unknown;
  field: string;
  message: string;
}

function strings(value: JsonValue | undefined, path: string, out: { path: string; text: string }[]): void {
  if (typeof value === 'string') out.push({ path, text: value });
  else if (Array.isArray(value)) value.forEach((v, i) => strings(v, `${path}[${i}]`, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) strings(v, `${path}.${k}`, out);
}

function templateStrings(spec: CompensationSpec): { path: string; text: string }[] {
  const out = [{ path: 'compensation.target', text: spec.target }];
  strings(spec.payload, 'compensation.payload', out);
  return out;
}

/** Syntax problems: braces that are not `{{input…}}` or `{{output…}}`. */
export function templateSyntaxProblems(spec: CompensationSpec): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  for (const { path, text } of templateStrings(spec)) {
    for (const match of text.matchAll(ANY_BRACES)) {
      if (!/^\s*(input|output)(\.[A-Za-z0-9_$-]+)*\s*$/.test(match[1]!)) {
        problems.push({ field: path, message: `"${match[0]}" is not a template reference: use {{input.field}} or {{output.field}}` });
      }
    }
  }
  return [...problems, ...destinationProblems(spec)];
}

/**
 * Where a compensation goes is the registrant's choice, never a call's data: the scheme and host
 * of an `http` target and the topics of a `kafka` one are fixed in the template (only an `http`
 * path or query may hold references, each value URL-encoded when filled), and no compensation
 * publishes onto Rewind's own `rewind.*` topics.
 */
export function destinationProblems(spec: CompensationSpec): TemplateProblem[] {
  const field = 'compensation.target';
  if (spec.channel === 'http') {
    const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(spec.target)?.[0];
    if (!origin || !/^https?:\/\/[^/?#{}]+$/i.test(origin)) {
      return [
        {
          field,
          message: `an http compensation's scheme and host must be fixed in the template (http://host[:port]/path/{{output.id}}), never taken from a call's data: "${spec.target}"`,
        },
      ];
    }
    return [];
  }
  if (spec.channel === 'kafka') {
    const problems: TemplateProblem[] = [];
    for (const [name, topic] of [
      [field, spec.target],
      ['compensation.replyTopic', spec.replyTopic],
    ] as const) {
      if (topic === undefined) continue;
      if (/\{\{/.test(topic))
        problems.push({ field: name, message: `a kafka compensation's topic must be fixed in the template, never taken from a call's data: "${topic}"` });
      else if (topic.startsWith('rewind.'))
        problems.push({ field: name, message: `"${topic}" is one of Rewind's own topics (rewind.*): a compensation never publishes there` });
    }
    return problems;
  }
  return [];
}

/** The references of a template, e.g. `output.bookingId`. */
export function templateRefs(spec: CompensationSpec): string[] {
  return [...new Set(templateStrings(spec).flatMap(({ text }) => [...text.matchAll(REF)].map((m) => m[1]!)))];
}

function lookup(root: { input: JsonValue; output: JsonValue | undefined }, ref: string): JsonValue | undefined {
  const [head, ...rest] = ref.split('.');
  let value: JsonValue | undefined = head === 'input' ? root.input : root.output;
  for (const key of rest) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !(key in value)) return undefined;
    value = (value as Record<string, JsonValue>)[key];
  }
  return value;
}

/** References of `source` ('input' or 'output') that the given values do not have. */
export function missingRefs(spec: CompensationSpec, source: 'input' | 'output', values: { input: JsonValue; output?: JsonValue }): string[] {
  return templateRefs(spec)
    .filter((ref) => ref === source || ref.startsWith(`${source}.`))
    .filter((ref) => lookup({ input: values.input, output: values.output }, ref) === undefined);
}

function fill(text: string, values: { input: JsonValue; output: JsonValue | undefined }, encode?: (value: string) => string): JsonValue {
  const whole = /^\{\{\s*((?:input|output)(?:\.[A-Za-z0-9_$-]+)*)\s*\}\}$/.exec(text);
  if (whole && !encode) return lookup(values, whole[1]!) ?? null; // a lone reference keeps its JSON type
  return text.replace(REF, (_, ref: string) => {
    const v = lookup(values, ref);
    const s = typeof v === 'string' ? v : JSON.stringify(v ?? null);
    return encode ? encode(s) : s;
  });
}

function fillValue(value: JsonValue, values: { input: JsonValue; output: JsonValue | undefined }): JsonValue {
  if (typeof value === 'string') return fill(value, values);
  if (Array.isArray(value)) return value.map((v) => fillValue(v, values));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillValue(v, values)]));
  return value;
}

/** The compensation request for one call: target and payload with every reference filled. */
export function fillCompensation(spec: CompensationSpec, values: { input: JsonValue; output: JsonValue | null }): { target: string; payload: JsonValue } {
  const v = { input: values.input, output: values.output ?? undefined };
  // A value in an http target stays inside its path segment or query value: `../x?y=` arrives as `..%2Fx%3Fy%3D`.
  const target = fill(spec.target, v, spec.channel === 'http' ? encodeURIComponent : undefined);
  return { target: typeof target === 'string' ? target : JSON.stringify(target), payload: spec.payload ? fillValue(spec.payload, v) : null };
}

/**
 * References the compensation of a call cannot fill: a field of the output of a call that never
 * finished (`{{output.bookingId}}`: unknown, not null), and any field the input or output lacks.
 * Such a request is never sent: `/bookings/null/cancel` would cancel nothing and be recorded as
 * compensated. (A whole `{{output}}` stays fillable: it is null for an unfinished call, which a
 * compensator that takes the whole output is told to expect, e.g. the library mode's undo.)
 */
export function unfillableRefs(spec: CompensationSpec, call: { status: string; input: JsonValue; output: JsonValue | null }): string[] {
  const finished = call.status === 'succeeded';
  return templateRefs(spec).filter((ref) => {
    if (ref === 'output') return false;
    if (ref.startsWith('output.') && !finished) return true;
    return lookup({ input: call.input, output: call.output ?? undefined }, ref) === undefined;
  });
}
