import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node';

/**
 * Lists, after the run, every test that did not run and why: `npm test` otherwise prints a
 * skipped count and nothing else. A wholly skipped group is one line; the reason is what the
 * test was told by `ctx.skip(note)`, else what its name or a group's says (see `skipReason`).
 * Silent when a `-t` filter skips the rest on purpose.
 */
export default class SkippedTestsReporter implements Reporter {
  private filtered = false;

  onInit(vitest: Vitest): void {
    this.filtered = vitest.config.testNamePattern !== undefined;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (this.filtered) return;
    const groups = new Map<string, { count: number; reason: string }>();
    for (const module of testModules) {
      for (const test of module.children.allTests('skipped')) {
        const { where, reason } = describeSkip(test);
        const line = `${module.relativeModuleId} › ${where}`;
        const group = groups.get(line);
        if (group) group.count++;
        else groups.set(line, { count: 1, reason });
      }
    }
    if (groups.size === 0) return;
    const total = [...groups.values()].reduce((sum, g) => sum + g.count, 0);
    const lines = [...groups].map(([line, { count, reason }]) => `  - ${line}${count > 1 ? ` (${count} tests)` : ''}: ${reason}`);
    process.stdout.write(`\n Skipped (${total}), and why:\n${lines.join('\n')}\n\n`);
  }
}

/** The outermost skipped suite holding the test (or the test itself), and the reason given. */
function describeSkip(test: TestCase): { where: string; reason: string } {
  let where: { fullName: string } = test;
  const names = [test.name];
  let skippedSoFar = true;
  for (let parent = test.parent; parent.type === 'suite'; parent = parent.parent) {
    names.push(parent.name);
    skippedSoFar &&= parent.options.mode === 'skip' || parent.options.mode === 'todo';
    if (skippedSoFar) where = parent;
  }
  const result = test.result();
  const note = result.state === 'skipped' ? result.note : undefined;
  const { reason, carriedBy } = skipReason({ note, names, todo: test.options.mode === 'todo' });
  // The reason is printed after the name: not twice.
  return { where: carriedBy ? where.fullName.replace(carriedBy, '') : where.fullName, reason };
}

/**
 * Where a name says why its test is skipped, most explicit first; group 1 is the reason. A trailing
 * `[… only: …]` names the one configuration a test runs on (`it.runIf`) and why.
 */
const REASONS_IN_NAMES = [/\s*\[skipped: ([^\]]+)\]/, /\s*\[([^[\]]*\bonly: [^[\]]+)\]\s*$/, /[\s:,;]*\bskipped because (.+)$/];

export const NO_REASON = 'no reason given (name the reason in the test or pass it to ctx.skip)';

/**
 * Why a test did not run: the note it was given by `ctx.skip(note)`; else what a name says, the
 * test's own then its suites' (`names`, innermost first): a `[skipped: …]` bracket, else a trailing
 * `[… only: …]` bracket, else a 'skipped because …' phrase. `carriedBy` is the text of the name the
 * reason was read from, so that it can be left out where the name is printed.
 */
export function skipReason(skip: { note?: string; names: readonly string[]; todo?: boolean }): { reason: string; carriedBy?: string } {
  if (skip.note) return { reason: skip.note };
  for (const pattern of REASONS_IN_NAMES) {
    for (const name of skip.names) {
      const match = pattern.exec(name);
      if (match) return { reason: match[1]!, carriedBy: match[0] };
    }
  }
  return { reason: skip.todo ? 'a todo' : NO_REASON };
}
