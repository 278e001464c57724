/**
 * Summarises `.cpuprofile` files (from `node --cpu-prof` or the suite's profiler): the functions
 * with the most self time, and self time by component (Rewind's libs, each npm package, Node
 * internals, GC). Prints Markdown.
 *
 * Usage: node dist/test/bench/suite/cpuprofile-summary.js [--top=25] file.cpuprofile...
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface FunctionCost {
  name: string;
  location: string;
  component: string;
  selfMs: number;
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  busyMs: number;
  functions: FunctionCost[];
  components: { component: string; selfMs: number }[];
  /** Rewind's functions by inclusive time (their own and their callees', each sample counted once per function). */
  inclusive: FunctionCost[];
  /** Native code's self time (SQLite, zlib, crypto…) by the nearest calling script function: what a native frame alone cannot say. */
  nativeByCaller: FunctionCost[];
}

/** Which part of the system a script URL belongs to. */
export function componentOf(url: string, functionName: string): string {
  if (!url) {
    if (functionName === '(garbage collector)') return 'V8: garbage collector';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'V8/native (program)';
    if (functionName === '(root)') return 'root';
    return 'native';
  }
  if (url.startsWith('node:internal/deps/undici')) return 'node: undici (fetch)';
  if (url.startsWith('node:internal/deps/')) return `node: ${url.slice('node:internal/deps/'.length).split('/')[0]}`;
  if (url.startsWith('node:internal/')) return `node: internal/${url.slice('node:internal/'.length).split('/')[0]!.replace(/\.js$/, '')}`;
  if (url.startsWith('node:')) return `node: ${url.slice(5).split('/')[0]}`;
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + '/node_modules/'.length).split('/');
    return `npm: ${parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  // A workspace package's build (libs/<name>/dist/…), or a build under the root's dist/.
  const dist = /\/(libs|apps)\/([^/]+)\/dist\//.exec(url) ?? /\/dist\/(libs|apps)\/([^/]+)\//.exec(url);
  if (dist) return `rewind: ${dist[1]}/${dist[2]}`;
  if (url.includes('/dist/test/')) return 'bench harness';
  return 'other';
}

function shortLocation(url: string, line: number): string {
  if (!url) return '';
  const nm = url.lastIndexOf('/node_modules/');
  const trimmed = nm >= 0 ? url.slice(nm + '/node_modules/'.length) : url.replace(/^.*\/dist\//, '').replace(/^file:\/\//, '');
  return `${trimmed}:${line + 1}`;
}

export function summarizeProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  if (samples.length > 0) {
    const mean = (profile.endTime - profile.startTime) / samples.length;
    for (let i = 0; i < samples.length; i++) {
      // A sample's time runs until the next sample.
      const us = i + 1 < deltas.length ? deltas[i + 1]! : mean;
      self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + Math.max(0, us));
    }
  } else {
    const interval =
      (profile.endTime - profile.startTime) /
      Math.max(
        1,
        profile.nodes.reduce((a, n) => a + (n.hitCount ?? 0), 0),
      );
    for (const n of profile.nodes) self.set(n.id, (n.hitCount ?? 0) * interval);
  }
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const keyOf = (node: ProfileNode) => `${node.callFrame.functionName || '(anonymous)'}@${node.callFrame.url}:${node.callFrame.lineNumber}`;
  const costOf = (node: ProfileNode, component: string): FunctionCost => ({
    name: node.callFrame.functionName || '(anonymous)',
    location: shortLocation(node.callFrame.url, node.callFrame.lineNumber),
    component,
    selfMs: 0,
  });
  const add = (into: Map<string, FunctionCost>, node: ProfileNode, component: string, us: number) => {
    const key = keyOf(node);
    const entry = into.get(key) ?? costOf(node, component);
    entry.selfMs += us / 1000;
    into.set(key, entry);
  };
  const functions = new Map<string, FunctionCost>();
  const inclusive = new Map<string, FunctionCost>();
  const nativeByCaller = new Map<string, FunctionCost>();
  const components = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of self) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url } = node.callFrame;
    const name = functionName || '(anonymous)';
    const component = componentOf(url, name);
    totalUs += us;
    if (component === 'idle') {
      idleUs += us;
      continue;
    }
    add(functions, node, component, us);
    components.set(component, (components.get(component) ?? 0) + us / 1000);
    // Up the stack: every distinct Rewind function on it gets the sample once; native code is charged to its caller.
    const seen = new Set<string>();
    let charged = component !== 'native';
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!;
      const frameComponent = componentOf(frame.callFrame.url, frame.callFrame.functionName);
      if (!charged && frame.callFrame.url) {
        add(nativeByCaller, frame, frameComponent, us);
        charged = true;
      }
      const key = keyOf(frame);
      if (frameComponent.startsWith('rewind:') && !seen.has(key)) {
        seen.add(key);
        add(inclusive, frame, frameComponent, us);
      }
    }
  }
  const heaviest = (map: Map<string, FunctionCost>) => [...map.values()].sort((a, b) => b.selfMs - a.selfMs).slice(0, top);
  return {
    file,
    totalMs: totalUs / 1000,
    busyMs: (totalUs - idleUs) / 1000,
    functions: heaviest(functions),
    components: [...components.entries()].map(([component, selfMs]) => ({ component, selfMs })).sort((a, b) => b.selfMs - a.selfMs),
    inclusive: heaviest(inclusive),
    nativeByCaller: heaviest(nativeByCaller),
  };
}

export function renderProfileSummary(summary: ProfileSummary): string {
  const pct = (ms: number) => `${((ms / Math.max(summary.busyMs, 1e-9)) * 100).toFixed(1)} %`;
  const lines = [
    `### ${basename(summary.file, '.cpuprofile')}`,
    '',
    `Profiled ${summary.totalMs.toFixed(0)} ms, of which ${summary.busyMs.toFixed(0)} ms on the CPU (the rest idle: waiting for I/O). Percentages are of the on-CPU time.`,
    '',
    '| Component | self ms | share |',
    '| --- | --- | --- |',
    ...summary.components.slice(0, 15).map((c) => `| ${c.component} | ${c.selfMs.toFixed(0)} | ${pct(c.selfMs)} |`),
    '',
    '| Function | Where | Component | self ms | share |',
    '| --- | --- | --- | --- | --- |',
    ...summary.functions.map((f) => `| \`${f.name}\` | ${f.location} | ${f.component} | ${f.selfMs.toFixed(1)} | ${pct(f.selfMs)} |`),
    '',
    '| Rewind function, inclusive (with its callees) | Where | ms | share |',
    '| --- | --- | --- | --- |',
    ...summary.inclusive.map((f) => `| \`${f.name}\` | ${f.location} | ${f.selfMs.toFixed(1)} | ${pct(f.selfMs)} |`),
    '',
    '| Native code (SQLite, zlib, crypto…) by its calling function | Where | Component | ms | share |',
    '| --- | --- | --- | --- | --- |',
    ...summary.nativeByCaller.map((f) => `| \`${f.name}\` | ${f.location} | ${f.component} | ${f.selfMs.toFixed(1)} | ${pct(f.selfMs)} |`),
    '',
  ];
  return lines.join('\n');
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const top = Number(args.find((a) => a.startsWith('--top='))?.slice(6) ?? 25);
  const files = args.filter((a) => !a.startsWith('--'));
  if (files.length === 0) {
    console.error('Usage: node dist/test/bench/suite/cpuprofile-summary.js [--top=25] file.cpuprofile...');
    process.exit(2);
  }
  for (const file of files) console.log(renderProfileSummary(summarizeProfile(file, top)));
}
