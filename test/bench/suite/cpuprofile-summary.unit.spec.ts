import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeProfile } from './cpuprofile-summary';

const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0, columnNumber: 0 });

/** handle → apply → (native) twice, handle → append → (native) once, append → handle (recursion) once, idle once: 1 ms a sample. */
function writeProfile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rewind-cpuprofile-'));
  const lib = (name: string) => `file:///repo/libs/${name}/dist/index.js`;
  const nodes = [
    { id: 1, callFrame: frame('(root)'), children: [2, 7] },
    { id: 2, callFrame: frame('handle', lib('projections')), children: [3, 5] },
    { id: 3, callFrame: frame('apply', lib('projections')), children: [4] },
    { id: 4, callFrame: frame('run') },
    { id: 5, callFrame: frame('append', lib('event-store')), children: [6, 8] },
    { id: 6, callFrame: frame('run') },
    { id: 7, callFrame: frame('(idle)') },
    { id: 8, callFrame: frame('handle', lib('projections')) },
  ];
  const samples = [4, 4, 6, 8, 7];
  const file = join(dir, 'p.cpuprofile');
  writeFileSync(file, JSON.stringify({ nodes, startTime: 0, endTime: 5000, samples, timeDeltas: samples.map(() => 1000) }));
  return file;
}

describe('a CPU profile summary', () => {
  it('charges each Rewind function once per sample on its stack, and native code to its nearest script caller', () => {
    const summary = summarizeProfile(writeProfile());
    expect(summary.busyMs).toBe(4);
    const inclusive = Object.fromEntries(summary.inclusive.map((f) => [f.name, f.selfMs]));
    // handle is on every busy sample's stack, twice on one (recursion): counted once there.
    expect(inclusive).toEqual({ handle: 4, apply: 2, append: 2 });
    const native = Object.fromEntries(summary.nativeByCaller.map((f) => [f.name, f.selfMs]));
    expect(native).toEqual({ apply: 2, append: 1 });
  });
});
