// The container stage of `npm test`: the replicated container stack (compose.yaml), then the fault
// test, and the stack is removed again whatever happened (containers, network, volumes; the images
// stay as a cache). Its crashes are the single host's own: each NATS node, the whole NATS cluster
// and the database; a replica of each service is killed in the Kubernetes stage (docs/adr/0028). The browser scenarios that cross services run in the Kubernetes stage, through
// its Services (docs/adr/0028); `npm run e2e -- --url` runs them against this stack by hand.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { containersOf, loadCompose } from './compose.ts';
import { bold, formatDuration, green, podman, red, ROOT } from './exec.ts';
import { runFaultTest, SINGLE_HOST_KILLS } from './fault-test.ts';
import { raiseAddressLimitsForTests, startContainerStack, stopContainerStack } from './stack.ts';

const LOGS = path.join(ROOT, '.artifacts', 'containers');

/** A CI run keeps only what it printed: this many error lines of the services are printed too. */
const ERROR_LINES_SHOWN = 30;

/**
 * Every container's output, kept in .artifacts/containers/ before the stack goes. After a failure
 * the services' error lines are printed as well (a CI run keeps only its output), so a 500 comes
 * with the error behind it.
 */
async function saveLogs(printErrors: boolean): Promise<void> {
  rmSync(LOGS, { recursive: true, force: true });
  mkdirSync(LOGS, { recursive: true });
  const errors: string[] = [];
  for (const container of await containersOf(loadCompose().name)) {
    const { output } = await podman(['logs', container.name], { allowFailure: true });
    writeFileSync(path.join(LOGS, `${container.name}.log`), output);
    for (const line of output.split('\n')) {
      if (/"level":"(error|fatal)"/.test(line)) errors.push(`${container.name}: ${line.slice(0, 800)}`);
    }
  }
  if (!printErrors) return;
  console.log(bold(`\n▸ error lines of the services (${errors.length}; all logs in .artifacts/containers/)`));
  // The causes first: the gateway's access lines of failed requests only repeat their status.
  const accessLine = (line: string) => Number(line.includes('"msg":"request failed"'));
  errors.sort((a, b) => accessLine(a) - accessLine(b));
  for (const line of errors.slice(0, ERROR_LINES_SHOWN)) console.log(line);
}

const started = Date.now();
const timings: Array<[string, number]> = [];
async function step(name: string, work: () => Promise<void>): Promise<void> {
  console.log(bold(`\n▸ ${name}`));
  const t0 = Date.now();
  await work();
  timings.push([name, Date.now() - t0]);
}

let failed = false;
try {
  raiseAddressLimitsForTests();
  await step('the container stack (images, 2 replicas of every service)', () => startContainerStack());
  await step('fault test', () => runFaultTest({ keep: true, kills: SINGLE_HOST_KILLS }));
} catch (error) {
  failed = true;
  console.error(red((error as Error).message));
} finally {
  await saveLogs(failed).catch((error: unknown) =>
    console.error(red(`saving logs failed: ${(error as Error).message}`)),
  );
  await step('remove the container stack', () => stopContainerStack()).catch((error: unknown) => {
    failed = true;
    console.error(red(`removing the stack failed: ${(error as Error).message}`));
  });
}
for (const [name, ms] of timings) console.log(`  ${name.padEnd(56)} ${formatDuration(ms)}`);
if (failed) process.exit(1);
console.log(green(`✓ container stage passed in ${formatDuration(Date.now() - started)}`));
