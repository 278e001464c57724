/**
 * Limits on the shape of JSON input, checked on the raw text in one linear pass before it is
 * parsed: one object with tens of thousands of keys made parsing and what follows it cost
 * seconds of event loop (roughly quadratic in the key count), for the API and Kafka commands
 * alike. Counting needs no objects built, so the refusal costs what reading the text costs.
 */
export interface JsonCostLimits {
  /** Keys one object may have (REWIND_MAX_JSON_KEYS_PER_OBJECT). */
  maxKeysPerObject: number;
  /** Values in the whole document: every member, element and the root (REWIND_MAX_JSON_NODES). */
  maxNodes: number;
}

export const DEFAULT_JSON_COST_LIMITS: JsonCostLimits = { maxKeysPerObject: 10_000, maxNodes: 200_000 };

export interface JsonCostProblem {
  limit: 'keys_per_object' | 'nodes';
  message: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * The first limit `text` exceeds, or null. Malformed JSON is not this check's business: it
 * counts what it sees and leaves the syntax error to the parser.
 */
export function jsonCostProblem(text: string, limits: JsonCostLimits = DEFAULT_JSON_COST_LIMITS): JsonCostProblem | null {
  // Too short to exceed either limit, so the scan is skipped (every request body of an agent's
  // turn, issue 40: the scan was ~1 % of the API's CPU under W4). A key is counted at a ':' and a
  // value at most twice per character (the root or an array's first element, and a ',' or ':'),
  // so a text of n characters has at most n keys in any object and 2n values.
  if (text.length <= limits.maxKeysPerObject && 2 * text.length <= limits.maxNodes) return null;
  return scanJsonCost(text, limits);
}

/** The linear scan itself (jsonCostProblem skips it for texts too short to exceed the limits). */
export function scanJsonCost(text: string, limits: JsonCostLimits): JsonCostProblem | null {
  // One frame per open container: its key count (objects), or whether its first element is still to come (arrays).
  const keys: number[] = [];
  const isArray: boolean[] = [];
  const awaitingFirst: boolean[] = [];
  let nodes = 0;
  let inString = false;
  let sawRoot = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (isSpace(c)) continue;
    const top = keys.length - 1;
    if (!sawRoot) {
      sawRoot = true;
      nodes++;
    }
    if (top >= 0 && isArray[top] && awaitingFirst[top] && c !== CLOSE_ARRAY) {
      awaitingFirst[top] = false;
      nodes++;
    }
    switch (c) {
      case QUOTE:
        inString = true;
        break;
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        keys.push(0);
        isArray.push(c === OPEN_ARRAY);
        awaitingFirst.push(c === OPEN_ARRAY);
        break;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        keys.pop();
        isArray.pop();
        awaitingFirst.pop();
        break;
      case COLON:
        if (top >= 0 && !isArray[top]) {
          nodes++;
          if (++keys[top]! > limits.maxKeysPerObject) {
            return {
              limit: 'keys_per_object',
              message: `an object has more than ${limits.maxKeysPerObject} keys (REWIND_MAX_JSON_KEYS_PER_OBJECT): split it, or use an array`,
            };
          }
        }
        break;
      case COMMA:
        if (top >= 0 && isArray[top]) nodes++;
        break;
    }
    if (nodes > limits.maxNodes) {
      return { limit: 'nodes', message: `the JSON holds more than ${limits.maxNodes} values (REWIND_MAX_JSON_NODES): send less at once` };
    }
  }
  return null;
}
