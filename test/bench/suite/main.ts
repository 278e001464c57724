/**
 * `npm run bench`: Rewind's benchmark suite, side by side with Emmett's PostgreSQL event store and
 * LangGraph's PostgresSaver on the same PostgreSQL, in one run.
 *
 *   node dist/test/bench/suite/main.js [--quick] [--only=W1,W3] [--jobs=emmett,langgraph]
 *                                      [--profile] [--no-wait] [--out=.bench]
 *
 *  --quick     small sizes (CI smoke test, under two minutes); writes .bench/ only.
 *  --only      run only these workloads (W1..W7, HTTP, DB, MEM; MEM in an HTTP job: W3 under W4 load, indexer off/on); --jobs: only these jobs (see job.ts).
 *  --profile   CPU-profile the measured phase of each job (quick sizes unless --full), summarise
 *              the profiles and the hot queries' plans into .bench/profile-summary.md.
 *  --soak      also run the soak (ten minutes of concurrent writers per store over HTTP, memory on; not in the default run).
 *  --no-wait   do not wait for the machine to be quiet before each job (a full run waits up to 60 s).
 *  --render=.bench/bench-results.json[,.bench/bench-results.partial.json]   only re-render the Markdown from saved raw
 *              figures (the rows of the files after the first are added to it: a --soak run after a full run).
 *
 * Each job runs in its own process (job.ts) and sets up its own data: SQLite in a temp dir,
 * PostgreSQL in fresh databases (`rwb_<run>_…` on REWIND_TEST_DATABASE_URL's server) that it
 * drops; the orchestrator drops any the run left behind. A full run writes BENCHMARKS.md and
 * .bench/bench-results.json; other runs write .bench/BENCHMARKS.<mode>.md and .bench/bench-results.<mode>.json.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { renderProfileSummary, summarizeProfile } from './cpuprofile-summary';
import { dropRunDatabases } from './databases';
import { JOB_NAMES, JOB_WORKLOADS, type JobName, type JobSpec } from './job';
import { describeMachine, waitForQuiet, backgroundBusy } from './machine';
import { renderConsole, renderMarkdown, type JobRun, type SuiteReport } from './report';
import { loadAnalysis } from './analysis';
import { loadLangGraphResults } from './langgraph-report';
import { loadLocomoSection } from './locomo-report';
import type { JobResult, Row, WorkloadId } from './results';
import { sizesFor } from './sizes';

interface Args {
  quick: boolean;
  only: WorkloadId[] | null;
  jobs: JobName[] | null;
  profile: boolean;
  wait: boolean;
  out: string;
}

const WORKLOADS: WorkloadId[] = ['W1', 'W2', 'W3', 'W4', 'W5', 'W6', 'W7', 'HTTP', 'DB', 'MEM', 'SOAK'];

function parseArgs(argv: string[]): Args {
  const value = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const list = (name: string) =>
    value(name)
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean) ?? null;
  let only = list('only')?.map((w) => w.toUpperCase()) ?? null;
  // --soak: the soak too, or only the soak when nothing else is named (a default run never includes it).
  if (argv.includes('--soak')) only = [...(only ?? []), 'SOAK'];
  for (const w of only ?? []) if (!WORKLOADS.includes(w as WorkloadId)) throw new Error(`Unknown workload "${w}": use ${WORKLOADS.join(', ')}.`);
  const jobs = list('jobs');
  for (const j of jobs ?? []) if (!(JOB_NAMES as readonly string[]).includes(j)) throw new Error(`Unknown job "${j}": use ${JOB_NAMES.join(', ')}.`);
  const profile = argv.includes('--profile');
  return {
    quick: argv.includes('--quick') || (profile && !argv.includes('--full')),
    only: only as WorkloadId[] | null,
    jobs: jobs as JobName[] | null,
    profile,
    wait: !argv.includes('--no-wait'),
    out: resolve(value('out') ?? '.bench'),
  };
}

function runChild(script: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<number | null> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'inherit', 'inherit'], env });
    const timer = setTimeout(() => {
      console.error(`  ${script}: timed out after ${Math.round(timeoutMs / 1000)} s, stopping it`);
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolvePromise(code);
    });
  });
}

/**
 * REWIND_BENCH_JOB_NODE_FLAGS (e.g. `--max-semi-space-size=32`): Node/V8 flags for the jobs'
 * processes, where the API runs, to A/B a runtime setting of the service. Given as NODE_OPTIONS, as
 * the product would take them: a V8 flag on the command line lands in process.execArgv, which
 * worker threads inherit and refuse (ERR_WORKER_INVALID_EXEC_ARGV: the memory indexer's thread
 * pool would not start). The load clients are started without them (client-process.ts).
 */
function jobNodeOptions(): NodeJS.ProcessEnv {
  const flags = process.env.REWIND_BENCH_JOB_NODE_FLAGS?.trim();
  if (!flags) return {};
  return { NODE_OPTIONS: [process.env.NODE_OPTIONS, flags].filter(Boolean).join(' '), REWIND_BENCH_CLIENT_NODE_OPTIONS: process.env.NODE_OPTIONS ?? '' };
}

/**
 * Re-renders BENCHMARKS.md (or the mode's .bench/ file) from saved JSONs of raw figures: the first
 * is the report; the rows and jobs of any others (e.g. a `--soak` run right after a full run) are
 * added to it, each row replacing one of the same system, store, path and key.
 */
function render(files: string[], out: string): void {
  const [first, ...others] = files.map((file) => JSON.parse(readFileSync(file, 'utf8')) as SuiteReport);
  const same = (a: Row, b: Row) => a.system === b.system && a.store === b.store && a.path === b.path && a.key === b.key;
  for (const other of others) {
    first!.rows = [...first!.rows.filter((row) => !other.rows.some((added) => same(row, added))), ...other.rows];
    first!.jobs = [...first!.jobs, ...other.jobs];
    first!.command += `; ${other.command}`;
    first!.durationMs += other.durationMs;
  }
  const report = {
    ...first!,
    langgraph: loadLangGraphResults(),
    analysis: loadAnalysis(),
    locomo: loadLocomoSection(),
  };
  const mdFile = report.mode === 'full' ? resolve('BENCHMARKS.md') : join(out, `BENCHMARKS.${report.mode}.md`);
  writeFileSync(mdFile, renderMarkdown(report) + '\n');
  console.log(renderConsole(report));
  console.error(`Wrote ${mdFile} from ${files.join(', ')}.`);
}

async function main(): Promise<void> {
  const renderFrom = process.argv.find((a) => a.startsWith('--render='))?.slice('--render='.length);
  const args = parseArgs(process.argv.slice(2).filter((a) => !a.startsWith('--render=')));
  if (renderFrom)
    return render(
      renderFrom.split(',').map((file) => resolve(file)),
      args.out,
    );
  const run = randomBytes(3).toString('hex');
  const started = Date.now();
  const startedAt = new Date().toISOString();
  const mode: SuiteReport['mode'] = args.profile ? 'profile' : args.only || args.jobs ? 'partial' : args.quick ? 'quick' : 'full';
  const tmp = join(args.out, 'tmp', run);
  mkdirSync(tmp, { recursive: true });
  const profileDir = join(args.out, 'profiles');
  if (args.profile) rmSync(profileDir, { recursive: true, force: true });

  console.error(`Rewind benchmark suite (${mode}${args.quick && mode !== 'quick' ? ', quick sizes' : ''}), run ${run}`);
  const facts = await describeMachine();
  console.error(`  ${facts.nproc} CPUs (${facts.cpuModel}), Node ${facts.node}, ${facts.postgres?.version.split(' on ')[0] ?? 'PostgreSQL unreachable'}`);

  const jobs = JOB_NAMES.filter((job) => (args.jobs ? args.jobs.includes(job) : true)).filter((job) =>
    args.only ? JOB_WORKLOADS[job].some((w) => args.only!.includes(w)) : true,
  );
  const rows: Row[] = [];
  const runs: JobRun[] = [];
  // The soak's minutes, and up to ten more for the memory index to catch up after them, come on top.
  const soakMs = args.only?.includes('SOAK') ? (sizesFor(args.quick).soakMinutes + 12) * 60_000 : 0;
  const timeoutMs = (args.quick ? 5 * 60_000 : 30 * 60_000) + soakMs;
  try {
    for (const job of jobs) {
      const busy = args.wait && !args.quick ? await waitForQuiet(60_000) : await backgroundBusy(300);
      console.error(`\n[${job}]${busy !== null && busy > 0.25 ? ` (the machine is ${Math.round(busy * 100)} % busy with other work)` : ''}`);
      const resultFile = join(tmp, `${job}.json`);
      const spec: JobSpec = { job, run, quick: args.quick, resultFile, ...(args.only ? { only: args.only } : {}) };
      const env = { ...process.env, ...(args.profile ? { REWIND_BENCH_PROFILE_DIR: join(profileDir, job) } : {}), ...jobNodeOptions() };
      const jobStart = Date.now();
      const code = await runChild(join(__dirname, 'job.js'), [JSON.stringify(spec)], env, timeoutMs);
      let result: JobResult | null = null;
      if (existsSync(resultFile)) result = JSON.parse(readFileSync(resultFile, 'utf8')) as JobResult;
      const error = result?.error ?? (code !== 0 ? `exited with code ${code}` : result ? undefined : 'no result');
      runs.push({ job, durationMs: Date.now() - jobStart, backgroundBusy: busy, ...(error ? { error } : {}) });
      if (result) rows.push(...result.rows);
      if (error) console.error(`  ${job} FAILED: ${error.split('\n')[0]}`);
    }
  } finally {
    const dropped = await dropRunDatabases(run).catch((e: Error) => {
      console.error(`  could not drop this run's databases: ${e.message}`);
      return [];
    });
    if (dropped.length > 0) console.error(`  dropped ${dropped.length} database(s) left behind: ${dropped.join(', ')}`);
  }

  const report: SuiteReport = {
    title: 'Rewind benchmarks',
    mode,
    startedAt,
    durationMs: Date.now() - started,
    command: `npm run bench${process.argv.slice(2).length ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    facts,
    sizes: sizesFor(args.quick),
    jobs: runs,
    rows,
    langgraph: loadLangGraphResults(),
    analysis: loadAnalysis(),
    locomo: loadLocomoSection(),
  };
  const suffix = mode === 'full' ? '' : `.${mode}`;
  mkdirSync(args.out, { recursive: true });
  writeFileSync(join(args.out, `bench-results${suffix}.json`), JSON.stringify(report, null, 1));
  const markdown = renderMarkdown(report);
  const mdFile = mode === 'full' ? resolve('BENCHMARKS.md') : join(args.out, `BENCHMARKS${suffix}.md`);
  writeFileSync(mdFile, markdown + '\n');
  console.log(`\n${renderConsole(report)}`);

  if (args.profile) {
    const sections: string[] = ['# Where Rewind’s time goes', '', `Profiles of the measured phases (${mode}, run ${run}); files under ${profileDir}.`, ''];
    for (const job of existsSync(profileDir) ? readdirSync(profileDir) : []) {
      for (const file of readdirSync(join(profileDir, job)).filter((f) => f.endsWith('.cpuprofile'))) {
        sections.push(renderProfileSummary(summarizeProfile(join(profileDir, job, file), 25)));
      }
    }
    console.error('\nEXPLAIN (ANALYZE, BUFFERS) of the hot queries...');
    const explainFile = join(args.out, 'explain.md');
    const code = await runChild(join(__dirname, 'explain.js'), [run, explainFile], process.env, 5 * 60_000);
    if (code === 0 && existsSync(explainFile)) sections.push(readFileSync(explainFile, 'utf8'));
    await dropRunDatabases(run).catch(() => []);
    writeFileSync(join(args.out, 'profile-summary.md'), sections.join('\n'));
    console.error(`Profile summary: ${join(args.out, 'profile-summary.md')}`);
  }
  rmSync(tmp, { recursive: true, force: true });
  console.error(`\nWrote ${mdFile} and ${join(args.out, `bench-results${suffix}.json`)} in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
  if (runs.some((r) => r.error)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
