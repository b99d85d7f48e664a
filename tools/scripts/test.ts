#!/usr/bin/env node
// `npm test`: the whole check suite, in order, stopping at the first failure:
//   setup (with helm, chromium and podman), formatting, commit messages, lint + typecheck + unit tests + build of
//   every project (these scripts and the benchmark are the `tools` project), integration tests
//   (real NATS and MongoDB, in containers where podman runs), the deployment checks, the end-to-end tests, the API fuzzing run
//   (schemathesis against the OpenAPI document of the stack as `npm start` runs it), and the
//   container stage (the replicated container stack, the end-to-end scenarios against it, the
//   fault test), and the Kubernetes stage (the charts on a one-node cluster: tools/k8s/ci.ts, alone
//   with `npm run test:k8s`; docs/adr/0028).
import path from 'node:path';
import { bold, dim, formatDuration, green, red, table } from './lib/log.ts';
import { run } from './lib/proc.ts';
import { SYSTEM_SCENARIOS } from './lib/stack.ts';
import { NX_ENV, ROOT, npmBin as bin } from './lib/workspace.ts';

type Stage = { name: string; command: [string, ...string[]]; env?: Record<string, string> };
/** A script of tools/ run by this Node.js: node('scripts/setup.ts', ...args). */
const node = (script: string, ...args: string[]): Stage['command'] => [
  process.execPath,
  path.join(ROOT, 'tools', script),
  ...args,
];
// Every task's own output in the log, the tests' counts included: by default Nx shows only failures'.
const STATIC = '--output-style=static';

const stages: Stage[] = [
  { name: 'setup', command: node('scripts/setup.ts', '--helm', '--fuzz', '--chromium', '--containers') },
  { name: 'format', command: [bin('prettier'), '--check', '.'] },
  // Conventional Commits, subjects of at most 72 characters, since CHECKED_FROM (commitlint.config.mjs).
  { name: 'commit messages', command: node('scripts/commit-messages.ts') },
  {
    name: 'lint, typecheck, test, build',
    command: [bin('nx'), 'run-many', '-t', 'lint', 'typecheck', 'test', 'build', '--parallel=2', STATIC],
  },
  // Two projects at a time, and the gateway's suites (the longest, mostly waiting on clocks and
  // windows) two at a time beside them. Each suite has its own servers.
  { name: 'integration', command: [bin('nx'), 'run-many', '-t', 'integration', '--parallel=2', STATIC] },
  { name: 'deployment checks', command: node('scripts/check-deploy.ts') },
  // The scenarios that cross services and replicas run once, through the Kubernetes cluster below.
  // Two files at a time (the arena's mostly waits on its schedule); the felt latency alone after
  // them, as its Play now would take any open room of another file.
  {
    name: 'end-to-end',
    command: node('scripts/e2e.ts', '--workers=2'),
    env: { E2E_SKIP: [...SYSTEM_SCENARIOS, 'latency'].join(',') },
  },
  { name: 'felt latency', command: node('scripts/e2e.ts', '--no-build', 'latency') },
  // Every schemathesis check against the gateway's OpenAPI document, on a throwaway stack of what
  // the stages above built.
  { name: 'fuzzing', command: node('fuzz/src/fuzz.ts', '--no-build') },
  // The replicated container stack (what a single-host operator runs): images, the fault test.
  { name: 'containers', command: node('containers/src/ci.ts') },
  // The charts on a one-node Kubernetes cluster built here: Pod Security Admission, the scenarios
  // through its Services, rollout restarts and deleted pods under play, NATS users, a clean down.
  { name: 'kubernetes', command: node('k8s/ci.ts') },
];

let interrupted = false;
// The running stage gets Ctrl-C itself.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => (interrupted = true));

const results: { stage: Stage; outcome: keyof typeof symbol; ms?: number; note?: string }[] = [];
const started = Date.now();
for (const stage of stages) {
  if (results.some((r) => r.outcome === 'failed') || interrupted) {
    results.push({ stage, outcome: 'not run' });
    continue;
  }
  console.log(bold(`\n▸ ${stage.name}`) + dim(`  ${displayCommand(stage.command)}`));
  const stageStarted = Date.now();
  // The first command of a fresh clone is setup, which creates node_modules/.bin.
  const result = await run(stage.command[0], stage.command.slice(1), {
    env: { ...NX_ENV, ...stage.env },
  }).catch((error) => ({ code: 1, output: error.message }));
  const ms = Date.now() - stageStarted;
  if (result.output) console.error(result.output);
  const outcome = result.code === 0 && !interrupted ? 'passed' : 'failed';
  results.push({ stage, outcome, ms, note: interrupted ? 'interrupted' : undefined });
  console.log(
    (outcome === 'passed' ? green('✓') : red('✗')) + ` ${stage.name} ${dim(`(${formatDuration(ms)})`)}`,
  );
}

const symbol = { passed: green('✓'), failed: red('✗'), 'not run': dim('·') };
console.log(bold('\nSummary'));
console.log(
  table(
    results.map(({ stage, outcome, ms, note }) => [
      ` ${symbol[outcome]}`,
      stage.name,
      ms === undefined ? '' : formatDuration(ms),
      dim(note ?? (outcome === 'passed' || outcome === 'failed' ? '' : outcome)),
    ]),
  ),
);
const failed = results.find((r) => r.outcome === 'failed');
const total = formatDuration(Date.now() - started);
if (failed) {
  console.log(red(bold(`\nnpm test failed at "${failed.stage.name}" after ${total}.`)));
  process.exit(1);
}
console.log(green(bold(`\nnpm test passed in ${total}.`)));

function displayCommand(command: string[]) {
  return command
    .map((part) =>
      part === process.execPath ? 'node' : path.isAbsolute(part) ? path.relative(ROOT, part) : part,
    )
    .map((part) => part.replace(/^node_modules\/\.bin\//, ''))
    .join(' ');
}
