/**
 * The mixed-language tenant of the MEM workload alone (issue 39; `npm run bench:mem-mixed`, `-- --quick` for the
 * smoke sizes): the English and the Chinese sets' sessions in one tenant, recall@5 of their follow-ups asked right
 * after writing (keyword stage, no vector yet) and after catch-up, on the SQLite index and on PostgreSQL
 * (REWIND_TEST_DATABASE_URL's server). Prints the MEM section's mixed table and the targets; recall figures are
 * deterministic (seeded sets, no timing in them), so a loaded host does not change them. `--cross-language`: each
 * follow-up asked in the other language than its session's facts; `--settings=routed,routed.postgres` picks settings.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryTables, memoryTargets } from './suite/memory-report';
import { table } from './suite/report';
import { sizesFor } from './suite/sizes';
import { mixedTenantRecall, type MixedSetting } from './suite/workloads/mem-mixed';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const only = args.find((a) => a.startsWith('--settings='))?.slice('--settings='.length);
  const dir = mkdtempSync(join(tmpdir(), 'rewind-bench-mixed-'));
  try {
    const started = Date.now();
    const rows = await mixedTenantRecall(
      dir,
      sizesFor(args.includes('--quick')),
      only ? (only.split(',') as MixedSetting[]) : undefined,
      args.includes('--cross-language') ? 'cross-language' : 'same-language',
    );
    process.stdout.write(`${memoryTables(rows, table)}\n\n`);
    for (const row of rows) process.stdout.write(`- ${row.key}: ${(row.notes ?? []).join('; ')}\n`);
    process.stdout.write('\n');
    for (const check of memoryTargets(rows)) process.stdout.write(`- ${check.met ? 'met' : 'NOT met'}: ${check.target} — ${check.measured}\n`);
    process.stdout.write(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
