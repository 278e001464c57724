/** `key` as an array index, or -1. */
function indexOf(key: string | symbol): number {
  if (typeof key !== 'string') return -1;
  const n = Number(key);
  return Number.isInteger(n) && n >= 0 && String(n) === key ? n : -1;
}

/**
 * An array that reads through to a prefix of `base` and keeps its own changes: what is appended,
 * and entries replaced inside the prefix. A copy of a long session's timeline (an entry an event:
 * 30 000 at 6 000 turns) or turns cost 5-7 % of a request in a scratch state; this costs what
 * changes. Evolve pushes (timeline, turns, thoughts, tasks), pops (tasks: the end of the prefix
 * is then hidden) and replaces a turn by its own copy; anything else inside the prefix (a delete)
 * copies the prefix first (correct, only not cheap). `base` must not change while the view is used
 * (a scratch state is short-lived).
 */
export function appendOnlyView<T>(base: readonly T[]): T[] {
  let shared = base.length;
  let own: T[] = [];
  let replaced = new Map<number, T>();
  const length = () => shared + own.length;
  const at = (i: number): T | undefined => (i >= shared ? own[i - shared] : replaced.has(i) ? replaced.get(i) : base[i]);
  const present = (i: number) => (i >= shared ? i - shared in own : replaced.has(i) || i in base);
  const ownPrefix = () => {
    const prefix = base.slice(0, shared);
    for (const [i, value] of replaced) prefix[i] = value;
    [own, shared, replaced] = [prefix.concat(own), 0, new Map()];
  };
  const write = (i: number, value: T) => {
    if (i < shared) replaced.set(i, value);
    else own[i - shared] = value;
  };
  const setLength = (n: number) => {
    if (n >= shared) own.length = n - shared;
    else {
      [shared, own] = [n, []];
      for (const i of replaced.keys()) if (i >= n) replaced.delete(i);
    }
  };
  return new Proxy([] as T[], {
    get: (target, key, receiver) => {
      if (key === 'length') return length();
      const i = indexOf(key);
      return i >= 0 ? at(i) : Reflect.get(target, key, receiver);
    },
    set: (target, key, value) => {
      if (key === 'length') setLength(Number(value));
      else if (indexOf(key) >= 0) write(indexOf(key), value as T);
      else return Reflect.set(target, key, value);
      return true;
    },
    deleteProperty: (target, key) => {
      const i = indexOf(key);
      if (i < 0) return Reflect.deleteProperty(target, key);
      if (i < shared) ownPrefix();
      delete own[i - shared];
      return true;
    },
    has: (target, key) => (indexOf(key) >= 0 ? present(indexOf(key)) : Reflect.has(target, key)),
    ownKeys: (target) => {
      const keys: (string | symbol)[] = [];
      for (let i = 0; i < length(); i++) if (present(i)) keys.push(String(i));
      return keys.concat(Reflect.ownKeys(target).filter((key) => indexOf(key) < 0));
    },
    getOwnPropertyDescriptor: (target, key) => {
      if (key === 'length') return { value: length(), writable: true, enumerable: false, configurable: false };
      const i = indexOf(key);
      if (i < 0) return Reflect.getOwnPropertyDescriptor(target, key);
      return present(i) ? { value: at(i), writable: true, enumerable: true, configurable: true } : undefined;
    },
    defineProperty: (target, key, descriptor) => {
      if (key !== 'length' && indexOf(key) < 0) return Reflect.defineProperty(target, key, descriptor);
      if (!('value' in descriptor)) return false;
      if (key === 'length') setLength(Number(descriptor.value));
      else write(indexOf(key), descriptor.value as T);
      return true;
    },
  });
}
