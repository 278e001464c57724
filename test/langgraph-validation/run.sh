#!/usr/bin/env bash
# LangGraph's official checkpointer validation suite (@langchain/langgraph-checkpoint-validation)
# against both Rewind savers: RewindCheckpointSaver in process and RewindHttpCheckpointSaver
# against the real API (apps/api/dist/main.js, started on a free port). Its own npm project:
# the suite needs vitest 4. Fails unless every case of the suite ran and passed on both savers.
# Usage: bash test/langgraph-validation/run.sh   (after `npm install` and `npm run build` at the root)
set -euo pipefail
cd "$(dirname "$0")"
test -f ../../libs/langgraph/dist/index.js -a -f ../../apps/api/dist/main.js ||
  { echo "the repository is not built (libs/langgraph/dist, apps/api/dist): run npm run build first" >&2; exit 1; }

# Not `npm ci`, as at the root: npm 11 leaves other platforms' optional packages out of lock files.
npm install --no-audit --no-fund --loglevel=error

report=$(mktemp "${TMPDIR:-/tmp}/langgraph-validation-XXXXXX.json")
trap 'rm -f "$report"' EXIT
npx vitest run --reporter=default --reporter=json --outputFile.json="$report"

# The suite's size, per saver: a case skipped or left unregistered fails this step too.
node - "$report" <<'JS'
const report = JSON.parse(require('node:fs').readFileSync(process.argv[2], 'utf8'));
const expected = 718;
let failed = false;
for (const file of report.testResults) {
  const passed = file.assertionResults.filter((t) => t.status === 'passed').length;
  const name = file.name.split('/').pop();
  console.log(`${name}: ${passed} of ${file.assertionResults.length} cases passed (the suite has ${expected})`);
  if (passed !== expected || file.assertionResults.length !== expected) failed = true;
}
if (report.testResults.length !== 2) failed = true;
console.log(`${report.numPassedTests} passed, ${report.numTotalTests - report.numPassedTests} failed`);
process.exit(failed ? 1 : 0);
JS
