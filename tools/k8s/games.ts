// Games played by bots (tools/containers/src/players.ts) on the cluster while something is done to
// it: a `kubectl rollout restart`, a deleted pod, a killed container. Player 1 of each game plays
// through the gateway's Service, player 2 through the web Service's nginx (the path of a browser
// without an ingress), so both Services and every replica behind them carry moves and pushes.
// Afterwards the same checks as the container stack's fault test (tools/containers/src/fault-test.ts):
// every move answered 2xx is stored, every finished game is paid once to each player, no 500.
import { setTimeout as sleep } from 'node:timers/promises';
import { checkMoves, expectedTotals, Outcomes } from '../containers/src/fault-test.ts';
import {
  enlist,
  Fleet,
  type FinishedGame,
  type FleetOptions,
  type Game,
  GatewayClient,
  type Player,
  type RoomView,
} from '../containers/src/players.ts';
import { bold, dim, formatDuration, red } from '../scripts/lib/log.ts';

/** Something done to the cluster at `at` (ms after the games started); resolves when it is over. */
export type Disruption = { name: string; at: number; run: () => Promise<string> };

export type GamesOptions = {
  urls: { gateway: string; web: string };
  games?: number;
  disruptions: Disruption[];
  /**
   * Whether players may see an outage (network errors, 502-504): a killed NATS or database is one;
   * a rollout must not be.
   */
  outagesAllowed: boolean;
  /** Games whose turn times out during disruption k (shortest turn, slow play), for each k. */
  sleepers?: boolean;
};

export type GamesReport = {
  games: number;
  finishedGames: number;
  acceptedMoves: number;
  sleeperTimeouts: number;
  playersCheckedForRewards: number;
  statuses: Record<string, number>;
  /** What players noticed without a failed request: cut push streams, stalls read again. */
  playerNotices: number;
  disruptions: Array<{ name: string; tookMs: number; note: string; clientsSaw: Record<string, number> }>;
  problems: string[];
  tookMs: number;
};

const TURN_SECONDS = 60;
const SLEEPER_TURN_SECONDS = 14;
/** A sleeper's turn runs out this long after its last move: deadline + the timer's 4 s + 1 s. */
const SLEEPER_TIMEOUT_AFTER_MS = (SLEEPER_TURN_SECONDS + 4 + 1) * 1000;
/** Sleeper k's turn runs out this long after disruption k begins. */
const SLEEPER_TIMEOUT_AFTER_DISRUPTION_MS = 800;

export async function gamesDuring({
  urls,
  games = 20,
  disruptions,
  outagesAllowed,
  sleepers: withSleepers = false,
}: GamesOptions): Promise<GamesReport> {
  const started = Date.now();
  const outcomes = new Outcomes();
  let notices = 0;
  outcomes.error = () => void notices++;
  const onAnswer = (status: number | 'network', what: string) => outcomes.count(status, what);
  const viaGateway = new GatewayClient(urls.gateway, { maxSockets: 64, timeoutMs: 15_000, onAnswer });
  // nginx closes its idle kept-alive connections at once when it stops: a request sent on one at that
  // instant is sent again, as a browser does (docs/adr/0054). The gateway's own path gets no retry.
  const viaWeb = new GatewayClient(urls.web, {
    maxSockets: 64,
    timeoutMs: 15_000,
    onAnswer,
    retryResetReusedSocket: true,
  });
  const run = Date.now().toString(36);
  const pairs = async (count: number, prefix: string): Promise<Array<[Player, Player]>> => {
    const names = Array.from({ length: count }, (_, i) => [`${prefix}${run}a${i}`, `${prefix}${run}b${i}`]);
    const players = await enlist(viaGateway, names.flat());
    return names.map((_, i) => [
      players[2 * i] as Player,
      { ...(players[2 * i + 1] as Player), client: viaWeb },
    ]);
  };
  let playing = true;
  const fleet = (options: Omit<FleetOptions, 'jitter' | 'stallMs'>) =>
    new Fleet(outcomes, { jitter: 0.5, stallMs: 3000, ...options });
  const rooms = fleet({ duration: TURN_SECONDS, thinkMs: 700, keepPlaying: () => playing });
  const sleepers = fleet({ duration: SLEEPER_TURN_SECONDS, thinkMs: 8000, keepPlaying: () => false });
  const roomPairs = await pairs(games, 'k');
  const sleeperPairs = withSleepers ? await pairs(disruptions.length, 'z') : [];
  const t0 = Date.now();
  await Promise.all([
    ...roomPairs.map(([a, b]) => rooms.open(a, b)),
    ...sleeperPairs.map(([a, b], k) =>
      sleepers.open(
        a,
        b,
        t0 + (disruptions[k]?.at ?? 0) + SLEEPER_TIMEOUT_AFTER_DISRUPTION_MS - SLEEPER_TIMEOUT_AFTER_MS,
      ),
    ),
  ]);

  const done: GamesReport['disruptions'] = [];
  const problems: string[] = [];
  for (const [k, disruption] of disruptions.entries()) {
    await sleep(Math.max(0, t0 + disruption.at - Date.now()));
    const at = Date.now();
    if (withSleepers && at > t0 + disruption.at + SLEEPER_TIMEOUT_AFTER_DISRUPTION_MS)
      problems.push(
        `${disruption.name} came ${at - t0 - disruption.at} ms late, after sleeper ${k}'s turn ran out`,
      );
    const note = await disruption.run();
    const report = {
      name: disruption.name,
      tookMs: Date.now() - at,
      note,
      clientsSaw: outcomes.failuresBetween(at, Date.now()),
    };
    done.push(report);
    console.log(
      `  ${disruption.name.padEnd(40)} ${formatDuration(report.tookMs)} ${dim(note)}; ` +
        `failures meanwhile ${JSON.stringify(report.clientsSaw)}`,
    );
  }

  // A new game after everything, then the games stop.
  playing = false;
  const afterwards = fleet({ duration: TURN_SECONDS, thinkMs: 100, keepPlaying: () => false });
  const [a, b] = (await pairs(1, 'n'))[0] as [Player, Player];
  const after = await afterwards.open(a, b);
  const deadline = Date.now() + 180_000;
  while (!outcomes.finishedIn(after) && Date.now() < deadline) await sleep(500);
  // The last finished games (and sleepers' timeouts) reach rewards.
  const lastSleeper = withSleepers ? t0 + (disruptions.at(-1)?.at ?? 0) + 10_000 : 0;
  await sleep(Math.max(5000, lastSleeper - Date.now()));
  for (const f of [rooms, sleepers, afterwards]) await f.stop();

  const finalMoves = new Map<string, FinishedGame['moves']>();
  for (const [id, game] of outcomes.finished) finalMoves.set(id, game.moves);
  for (const game of [...rooms.games, ...sleepers.games, after] as Game[]) {
    if (!game.roomId) continue;
    const answer = await viaGateway.request<Pick<RoomView, 'whosTurn'>>('GET', `/api/rooms/${game.roomId}`);
    if (answer.status === 200)
      finalMoves.set(`${game.roomId}:${answer.body.whosTurn.gameNumber}`, answer.body.whosTurn.moves);
  }
  problems.push(...checkMoves(outcomes.accepted, finalMoves));
  const sleeperResults = sleepers.games.map((game) => outcomes.finishedIn(game));
  sleeperResults.forEach((game, k) => {
    if (!game) problems.push(`sleeper ${k}: its game never ended`);
    else if (game.endReason !== 'timeout')
      problems.push(`sleeper ${k}: ended by ${game.endReason}, not by timeout`);
  });
  if (!outcomes.finishedIn(after)) problems.push('the game after the disruptions did not finish');
  const expected = expectedTotals(outcomes.finished.values());
  for (const [playerId, want] of expected) {
    type Rewards = { playedGames: number; assets: { points: number; coins: number } };
    const answer = await viaGateway.request<Rewards>('GET', `/api/rewards/${playerId}`);
    if (answer.status !== 200) {
      problems.push(`rewards of ${playerId}: ${answer.status}`);
      continue;
    }
    const { playedGames, assets } = answer.body;
    if (JSON.stringify({ playedGames, ...assets }) !== JSON.stringify(want))
      problems.push(
        `rewards of ${playerId}: ${playedGames} games ${assets.points} points ${assets.coins} coins, ` +
          `expected ${want.playedGames}/${want.points}/${want.coins}`,
      );
  }
  viaGateway.close();
  viaWeb.close();
  for (const { at, status, what } of outcomes.failures) {
    if (status === '500' || !outagesAllowed)
      problems.push(
        `${status === 'network' ? 'no answer' : `a ${status}`} at ${new Date(at).toISOString()}: ${what}`,
      );
  }
  const report: GamesReport = {
    games: games + sleepers.games.length + 1,
    finishedGames: outcomes.finished.size,
    acceptedMoves: outcomes.accepted.length,
    sleeperTimeouts: sleeperResults.filter((g) => g?.endReason === 'timeout').length,
    playersCheckedForRewards: expected.size,
    statuses: Object.fromEntries(Object.entries(outcomes.byStatus).sort()),
    playerNotices: notices,
    disruptions: done,
    problems,
    tookMs: Date.now() - started,
  };
  console.log(
    `  ${report.acceptedMoves} moves answered 2xx, ${report.finishedGames} games finished` +
      (withSleepers
        ? `, ${report.sleeperTimeouts}/${sleepers.games.length} timeouts during disruptions`
        : '') +
      `, rewards of ${report.playersCheckedForRewards} players checked, ${notices} stream cuts or stalls seen`,
  );
  console.log(`  answers by status: ${JSON.stringify(report.statuses)}`);
  for (const problem of problems.slice(0, 40)) console.log(red(`  ✗ ${problem}`));
  console.log(bold(`  ${problems.length} problems`));
  return report;
}
