import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  LANGGRAPH_RESULTS_FILE,
  langgraphSection,
  loadLangGraphResults,
  replaceLangGraphSection,
  type LangGraphMeasurement,
  type LangGraphResults,
} from './langgraph-report';
import type { MachineFacts } from './machine';
import { renderMarkdown, type SuiteReport } from './report';
import { sizesFor } from './sizes';

const table = (header: string[], body: string[][]) => [header, ...body].map((r) => `| ${r.join(' | ')} |`).join('\n');

const measurement = (saver: string, bytes: [number, number], ms: [number, number], measuredAt: string, loadAverage: number): LangGraphMeasurement => ({
  saver,
  store: 'PostgreSQL',
  turns: 300,
  bytes: { early: bytes[0] * 1024, last: bytes[1] * 1024 },
  msPerTurn: { early: ms[0], last: ms[1] },
  measuredAt,
  command: 'npm run bench:langgraph',
  loadAverage,
});

const results: LangGraphResults = {
  'rewind-http': measurement('over HTTP', [300, 3000], [20, 30.25], '2026-11-25T15:00:00.000Z', 3.14),
  'postgres-saver': measurement('PostgresSaver', [500, 40_000], [60, 180], '2026-11-22T00:00:00.000Z', 9),
};

describe("BENCHMARKS.md's LangGraph section", () => {
  it('has one column per measured saver (PostgresSaver first), and says when and under what load each was measured', () => {
    const section = langgraphSection(results, table);
    const header = section.split('\n').find((line) => line.startsWith('|  |'))!;
    expect(header).toBe('|  | PostgresSaver (PostgreSQL) | over HTTP (PostgreSQL) |');
    expect(section).toContain('| bytes after turn 300 | 40 000 KB | 3 000 KB |');
    expect(section).toContain('| bytes, growth from turn 20 to 300 | 80.0× | 10.0× |');
    expect(section).toContain('| ms per turn at turn 300 | 180.0 | 30.3 |');
    expect(section).toContain('| measured | 2026-11-22, load 9.0 | 2026-11-25, load 3.1 |');
    expect(langgraphSection({}, table)).toBe('');
  });

  it('is rendered by the suite report when figures were saved, and replaced in place by bench:langgraph', () => {
    const facts: MachineFacts = {
      date: '2026-11-25',
      nproc: 2,
      memoryBytes: null,
      cpuModel: 'cpu',
      os: 'os',
      node: 'v20',
      postgres: null,
      sqlite: '3',
      packages: {},
      git: null,
      loadAverage: [0],
    };
    const report: SuiteReport = {
      title: 'T',
      mode: 'full',
      startedAt: '',
      durationMs: 0,
      command: 'npm run bench',
      facts,
      sizes: sizesFor(true),
      jobs: [],
      rows: [],
    };
    const rendered = renderMarkdown({ ...report, langgraph: results });
    expect(rendered).toContain('## LangGraph checkpointer');
    expect(rendered.indexOf('## LangGraph checkpointer')).toBeGreaterThan(rendered.indexOf('## Run'));
    expect(renderMarkdown(report)).not.toContain('## LangGraph checkpointer');

    const before = '# B\n\n## Run\n\nrun\n\n## LangGraph checkpointer: old\n\nold table\n\n## Session 3\n\nkept\n';
    const after = replaceLangGraphSection(before, '## LangGraph checkpointer: new\n\nnew table\n');
    expect(after).toBe('# B\n\n## Run\n\nrun\n\n## LangGraph checkpointer: new\n\nnew table\n\n## Session 3\n\nkept\n');
    expect(replaceLangGraphSection('# B\n', '## LangGraph checkpointer: new\n')).toBe('# B\n\n## LangGraph checkpointer: new\n');
  });

  it('the committed figures load and name every saver they measured', () => {
    const committed = loadLangGraphResults()!;
    expect(Object.keys(committed).length).toBeGreaterThan(0);
    for (const measurement of Object.values(committed)) expect(measurement.bytes.last).toBeGreaterThan(measurement.bytes.early);
    expect(JSON.parse(readFileSync(LANGGRAPH_RESULTS_FILE, 'utf8'))).toEqual(committed);
  });
});
