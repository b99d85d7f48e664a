// The fuzzing stage of `npm test`: schemathesis (PyPI, pinned in tools/scripts/lib/workspace.ts,
// installed by `setup.ts --fuzz`) runs every one of its checks (`--checks all`) against the OpenAPI
// document the gateway publishes (/api/docs/openapi.json), on the whole system as `npm start` runs
// it, started on free ports with throwaway data by the same startThrowawayStack() as the end-to-end
// tests' stack.
//   tools/fuzz/schemathesis.toml   the run's settings (examples per operation, phases, reports)
//   tools/fuzz/hooks.py            the two rules of the document JSON Schema cannot state, the
//                                  fuzzing player's account kept usable, and test data (the
//                                  player's own ids, credentials, and a game it finished); no check
//                                  is off
// Any failure or warning fails the stage. The report (JUnit, and the requests that failed,
// replayable with `schemathesis replay`) goes to .artifacts/fuzz/, the services' output to
// .artifacts/fuzz/stack.log.
//
// Usage: node tools/fuzz/src/fuzz.ts [--no-build] [--url <http://host:port>] [schemathesis options...]
//   --no-build   use what is built
//   --url        fuzz a stack that is already running (nothing is built or started). Every request
//                comes from one address, so its gateway needs the limits of SHARED_ADDRESS_LIMITS
//                (tools/scripts/lib/stack.ts), e.g. npm start with those variables set; with npm
//                start's own limits the fuzzer is locked out by the login and registration limits
//   anything else goes to `schemathesis run`, e.g. --include-path-regex '^/api/rooms' -n 5
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  emailOf,
  enlist,
  Fleet,
  GatewayClient,
  PASSWORD,
  type FinishedGame,
  type Player,
} from '../../containers/src/players.ts';
import { StepError, bold, dim, formatDuration, green, step } from '../../scripts/lib/log.ts';
import { setupAndBuild } from '../../scripts/lib/stack.ts';
import { runnerOptions, startThrowawayStack } from '../../scripts/lib/throwaway.ts';
import { ROOT, SCHEMATHESIS_BIN } from '../../scripts/lib/workspace.ts';

const ARTIFACTS = path.join(ROOT, '.artifacts', 'fuzz');
const CONFIG = path.join(ROOT, 'tools', 'fuzz', 'schemathesis.toml');
const DOCUMENT_PATH = '/api/docs/openapi.json';
/** The stage's time budget for the run itself: past it, the run is stopped and the stage fails. */
const RUN_BUDGET_MS = 8 * 60_000;

const options = runnerOptions(
  'Usage: node tools/fuzz/src/fuzz.ts [--no-build] [--url <http://host:port>] [schemathesis options]',
);

let baseUrl = options.url;
let throwaway: ReturnType<typeof startThrowawayStack> | undefined;
let fuzzer: ChildProcess | undefined;
let interrupted: string | undefined;
let serviceDied: string | undefined;

/** Before exiting on a failure: the fuzzer and the stack stop. */
async function cleanup(): Promise<void> {
  if (fuzzer?.exitCode === null) fuzzer.kill('SIGTERM');
  if (throwaway) {
    console.log(bold('▸ Stop the stack'));
    await throwaway.stop();
  }
  if (interrupted) process.exit(130);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    interrupted ??= signal;
    console.error(`\n${signal}: stopping the fuzzer and the stack`);
    if (fuzzer?.exitCode === null) fuzzer.kill('SIGTERM');
    void throwaway?.stop(); // cancels a start under way
  });
}

/** npm start's stack on free ports with throwaway data, the services' output in .artifacts/fuzz. */
async function start(): Promise<string> {
  if (interrupted) throw new StepError('interrupted');
  throwaway = startThrowawayStack({
    prefix: 'oasis-fuzz-',
    script: 'fuzz.ts',
    logFile: path.join(ARTIFACTS, 'stack.log'),
    onExit: (app, how) => {
      serviceDied = app;
      console.error(`\n!!! ${app} ${how} !!!\n`);
      if (fuzzer?.exitCode === null) fuzzer.kill('SIGTERM');
    },
  });
  const stack = await throwaway.starting;
  baseUrl = stack.url;
  return `${stack.url} (services: ${stack.apps.map((a) => a.name).join(', ')}; logs: .artifacts/fuzz/stack.log)`;
}

/**
 * A finished game and a player whose history holds it, so that the fuzzer reads a game record
 * that exists (GET /api/rewards/{userId}/games/{gameId}) and not only 404s: the fuzzing player and
 * a second one play one game to its end as the benchmark's bots do, the room is deleted, and the
 * game's id is read from the second player's history once rewards holds it. The second player's,
 * because the fuzzer never acts as that player, so nothing it sends changes that history.
 */
async function finishedGame(
  client: GatewayClient,
  player: Player,
  opponent: Player,
): Promise<{ userId: string; gameId: string }> {
  const problems: string[] = [];
  let finished: FinishedGame | undefined;
  const fleet = new Fleet(
    {
      error: (kind, detail) => problems.push(`${kind}: ${detail}`),
      gameFinished: (game) => (finished = game),
    },
    // Each player moves at most every 2 x 100 ms: within the 10 room edits a second a user may
    // make (DECISIONS), so the game also finishes on a stack that keeps npm start's limits.
    { duration: 14, thinkMs: 100, jitter: 0, keepPlaying: () => false },
  );
  await fleet.open(player, opponent);
  const deadline = Date.now() + 60_000;
  while (!finished && !problems.length && Date.now() < deadline) await sleep(200);
  await fleet.stop({ deleteRooms: true });
  if (!finished) throw new StepError("the fuzzing player's game did not finish", problems.join('\n'));
  while (Date.now() < deadline) {
    const history = await client.request<Array<{ gameId: string }>>(
      'GET',
      `/api/rewards/${encodeURIComponent(opponent.id)}/games`,
    );
    const game = history.status === 200 ? history.body[0] : undefined;
    if (game) return { userId: opponent.id, gameId: game.gameId };
    await sleep(200);
  }
  throw new StepError(`the finished game ${finished.gameId} did not reach the players' histories`);
}

/**
 * The player the fuzzer acts as (schemathesis.toml logs in with these; hooks.py keeps the account
 * usable and supplies the test data): a fresh one per run, with a finished game.
 */
async function fuzzingPlayer(url: string): Promise<Record<string, string>> {
  const client = new GatewayClient(url);
  try {
    // Two new players, valid by SPEC §5 (the bots' e-mail addresses keep within its 32 characters),
    // registered as the bots are.
    const names = [1, 2].map(() => `fuzz${randomBytes(3).toString('hex')}`);
    const [player, opponent] = (await enlist(client, names)) as [Player, Player];
    const game = await finishedGame(client, player, opponent);
    return {
      FUZZ_PLAYER_ID: player.id,
      FUZZ_NAME: player.name,
      FUZZ_EMAIL: emailOf(player.name),
      FUZZ_PASSWORD: PASSWORD,
      FUZZ_GAME_USER_ID: game.userId,
      FUZZ_GAME_ID: game.gameId,
    };
  } finally {
    client.close();
  }
}

/** Runs schemathesis with every check; resolves when it passed, throws with why when not. */
async function fuzz(): Promise<string> {
  if (interrupted) throw new StepError('interrupted');
  const player = await fuzzingPlayer(baseUrl as string);
  const args = [
    ...['--config-file', CONFIG, 'run', `${baseUrl}${DOCUMENT_PATH}`],
    ...['--checks', 'all', '--report-dir', ARTIFACTS, ...options.rest],
  ];
  console.log(
    dim(`  schemathesis ${args.map((a) => (a.startsWith(ROOT) ? path.relative(ROOT, a) : a)).join(' ')}`),
  );
  fuzzer = spawn(SCHEMATHESIS_BIN, args, {
    cwd: ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      ...player,
      FUZZ_BASE_URL: baseUrl as string,
      // Hypothesis keeps its own files here, not in the checkout.
      HYPOTHESIS_STORAGE_DIRECTORY: path.join(ARTIFACTS, 'hypothesis'),
      PYTHONDONTWRITEBYTECODE: '1',
    },
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    fuzzer?.kill('SIGTERM');
  }, RUN_BUDGET_MS);
  // The exit code (null when a signal ended it); 'error' (it could not be started) rejects.
  const [code] = (await once(fuzzer, 'exit').finally(() => clearTimeout(timer))) as [number | null];
  const recent: Record<string, string[]> = throwaway?.recent ?? {};
  if (serviceDied) {
    throw new StepError(`${serviceDied} stopped during the run`, (recent[serviceDied] ?? []).join('\n'));
  }
  if (interrupted) throw new StepError('interrupted');
  if (timedOut)
    throw new StepError(`the run took longer than its budget of ${formatDuration(RUN_BUDGET_MS)}`);
  if (code !== 0) {
    // With the services' error lines, so that a 500 comes with the error behind it.
    const errors = Object.entries(recent).flatMap(([app, tail]) =>
      tail
        .filter((line) => /"level":(50|60|"error"|"fatal")/.test(line))
        .map((l) => `${app}: ${l.slice(0, 800)}`),
    );
    const output = errors.length ? `--- the services' last error lines\n${errors.join('\n')}` : '';
    throw new StepError(
      'the fuzzer found failures or warnings (above; requests in .artifacts/fuzz/)',
      output,
    );
  }
  return 'no failures';
}

const started = Date.now();
rmSync(ARTIFACTS, { recursive: true, force: true });
mkdirSync(ARTIFACTS, { recursive: true });
await setupAndBuild(['--fuzz'], { build: options.build && !options.url });
if (!baseUrl) await step('Start the stack', start, { cleanup });
await step(`Fuzz ${baseUrl}`, fuzz, { cleanup });
await cleanup();
console.log(green(bold(`\n✓ fuzzing found nothing in ${formatDuration(Date.now() - started)}`)));
