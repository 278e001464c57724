import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from '@asyncapi/parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { BusMessage } from '../../message-bus';

/** The channels of docs/asyncapi.yaml. */
export type ContractChannel = 'commands' | 'commandResults' | 'commandsDlq' | 'events';

const DOCUMENT = join(__dirname, '../../../../../docs/asyncapi.yaml');

interface MessageCheck {
  name: string;
  headers: ValidateFunction | null;
  payload: ValidateFunction | null;
  /** The payload is the raw value (a dead letter), not JSON. */
  raw: boolean;
}

/**
 * docs/asyncapi.yaml as the official parser (@asyncapi/parser) reads it, with each channel's
 * message headers and payload compiled to validators: a message that does not match is named
 * with what is wrong.
 */
export class AsyncApiContract {
  private constructor(private readonly channels: Map<string, MessageCheck[]>) {}

  static async load(path = DOCUMENT): Promise<AsyncApiContract> {
    const { document, diagnostics } = await new Parser().parse(readFileSync(path, 'utf8'));
    // Severity 0 is an error: the document must parse cleanly before it can judge messages.
    const errors = diagnostics.filter((d) => d.severity === 0);
    if (!document || errors.length > 0) throw new Error(`${path} does not parse: ${errors.map((d) => `${d.path.join('.')}: ${d.message}`).join('; ')}`);
    // strict: false ignores the annotations AsyncAPI adds (examples, x-parser-*); validation is unchanged.
    const ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true });
    addFormats(ajv);
    const channels = new Map<string, MessageCheck[]>();
    for (const channel of document.channels().all()) {
      channels.set(
        channel.id(),
        channel
          .messages()
          .all()
          .map((message) => {
            const payload = message.payload()?.json() as Record<string, unknown> | undefined;
            const headers = message.headers()?.json() as Record<string, unknown> | undefined;
            return {
              name: message.id(),
              headers: headers ? ajv.compile(stripParserKeys(headers)) : null,
              payload: payload ? ajv.compile(stripParserKeys(payload)) : null,
              raw: payload?.type === 'string',
            };
          }),
      );
    }
    return new AsyncApiContract(channels);
  }

  /** Null when the message matches one of the channel's messages; else what is wrong with it. */
  check(channel: ContractChannel, message: BusMessage): string | null {
    const candidates = this.channels.get(channel);
    if (!candidates) throw new Error(`docs/asyncapi.yaml has no channel "${channel}"`);
    const problems: string[] = [];
    for (const candidate of candidates) {
      let payload: unknown = message.value;
      if (!candidate.raw) {
        try {
          payload = JSON.parse(message.value);
        } catch {
          problems.push(`${candidate.name}: the value is not JSON`);
          continue;
        }
      }
      const wrong = [
        ...(candidate.headers && !candidate.headers(message.headers) ? describe('headers', candidate.headers) : []),
        ...(candidate.payload && !candidate.payload(payload) ? describe('payload', candidate.payload) : []),
      ];
      if (wrong.length === 0) return null;
      problems.push(`${candidate.name}: ${wrong.join('; ')}`);
    }
    return `a message on ${channel} does not match docs/asyncapi.yaml (${problems.join(' | ')}): ${message.value.slice(0, 500)}`;
  }
}

function describe(part: string, validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map((e) => `${part}${e.instancePath} ${e.message ?? 'is invalid'}`);
}

/** The parser marks schemas with `x-parser-*` keys and ids; a validator needs none of them. */
function stripParserKeys(node: unknown): any {
  if (Array.isArray(node)) return node.map(stripParserKeys);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node as Record<string, unknown>)
      .filter(([key]) => !key.startsWith('x-parser-') && key !== '$id')
      .map(([key, value]) => [key, stripParserKeys(value)]),
  );
}
