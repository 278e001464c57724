import { DemoHttpError, runDemo } from './demo';

runDemo((line) => process.stdout.write(`${line}\n`)).then(
  () => {
    process.exitCode = 0;
  },
  (error: unknown) => {
    if (error instanceof DemoHttpError) {
      process.stderr.write(`\nDemo failed: ${error.method} ${error.path} answered HTTP ${error.status}\n${error.body}\n`);
    } else {
      process.stderr.write(`\nDemo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
    process.exitCode = 1;
  },
);
