import { execFileSync, spawnSync } from 'node:child_process';
import { createConnection } from 'node:net';

const port = Number(process.env.KAFKA_PORT ?? 9092);

function reachable(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port, timeout: 500 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

/**
 * `npm test` needs a real Kafka broker for the Kafka suites: when none answers and Java and
 * Maven are installed, start one (scripts/kafka/broker.sh) for the run and stop it after.
 */
export default async function setup(): Promise<(() => void) | void> {
  if (process.env.REWIND_TEST_KAFKA_BROKERS || (await reachable())) return;
  if (!has('java') || !has('mvn')) {
    process.stderr.write('No Kafka broker on 127.0.0.1 and no Java/Maven to start one: the Kafka suites will not run (they fail when CI is set).\n');
    return;
  }
  process.stdout.write(`Starting a Kafka broker on 127.0.0.1:${port} for this test run (scripts/kafka/broker.sh)...\n`);
  execFileSync('bash', ['scripts/kafka/broker.sh', 'start'], { stdio: 'inherit' });
  return () => {
    execFileSync('bash', ['scripts/kafka/broker.sh', 'stop'], { stdio: 'inherit' });
  };
}
