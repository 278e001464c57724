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
  const dist = /\/dist\/(libs|apps)\/([^/]+)\//.exec(url);
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
  const functions = new Map<string, FunctionCost>();
  const components = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of self) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    const component = componentOf(url, name);
    totalUs += us;
    if (component === 'idle') {
      idleUs += us;
      continue;
    }
    const key = `${name}@${url}:${lineNumber}`;
    const entry = functions.get(key) ?? { name, location: shortLocation(url, lineNumber), component, selfMs: 0 };
    entry.selfMs += us / 1000;
    functions.set(key, entry);
    components.set(component, (components.get(component) ?? 0) + us / 1000);
  }
  return {
    file,
    totalMs: totalUs / 1000,
    busyMs: (totalUs - idleUs) / 1000,
    functions: [...functions.values()].sort((a, b) => b.selfMs - a.selfMs).slice(0, top),
    components: [...components.entries()].map(([component, selfMs]) => ({ component, selfMs })).sort((a, b) => b.selfMs - a.selfMs),
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
