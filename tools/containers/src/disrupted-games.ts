// Games played by bots while something is done to the stack (a crashed container, a deleted pod, a
// rollout), then the checks that nothing was lost: every move answered 2xx is stored, every
// finished game is paid once to each player, each sleeper's turn times out once during disruption
// k, a new game plays afterwards, and no 500 is ever answered. The container stack's fault test and
// the Kubernetes stage both drive their disruptions through here.
import { setTimeout as sleep } from 'node:timers/promises';
import { bold, dim, formatDuration, red } from './exec.ts';
import { GatewayClient } from './players.ts';
import {
  enlist,
  type FinishedGame,
  Fleet,
  type FleetOptions,
  type Game,
  type MoveRecord,
  type Player,
  type Recorder,
  type RoomView,
} from './players.ts';

/**
 * What the players saw: every answer counted by HTTP status ('network' for none), the instants of
 * the failures among them, and every move answered 2xx and game finished, to check afterwards.
 */
class Outcomes implements Recorder {
  readonly byStatus: Record<string, number> = {};
  readonly failures: Array<{ startedAt: number; at: number; status: string; what: string }> = [];
  readonly accepted: MoveRecord[] = [];
  readonly finished = new Map<string, FinishedGame>();
  /** Cut push streams and stalls read again: what a player notices without a failed request. */
  notices = 0;
  /** When each request started and ended, to count those in flight at a disruption. */
  private readonly spans: Array<[number, number]> = [];

  count(status: number | 'network', what: string, startedAt = Date.now()): void {
    this.byStatus[status] = (this.byStatus[status] ?? 0) + 1;
    this.spans.push([startedAt, Date.now()]);
    if (status === 'network' || status >= 500)
      this.failures.push({ startedAt, at: Date.now(), status: String(status), what });
  }

  /** Requests sent before `at` and answered after it. */
  inFlightAt(at: number): number {
    return this.spans.filter(([from, to]) => from <= at && to >= at).length;
  }

  error = () => void this.notices++;

  move(move: MoveRecord): void {
    this.accepted.push(move);
  }

  gameFinished(game: FinishedGame): void {
    this.finished.set(game.gameId, game);
  }

  /** The first game finished in a room. */
  finishedIn(game: Game): FinishedGame | undefined {
    return [...this.finished.values()].find((g) => g.gameId.startsWith(`${game.roomId}:`));
  }

  /**
   * Failed requests by status that were in flight at some instant between two (2xx/4xx are not
   * timed): one sent before a kill and answered 503 when its timeout ran out, after the window,
   * counts for the window.
   */
  failuresBetween(from: number, to: number): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { startedAt, at, status } of this.failures)
      if (at >= from && startedAt <= to) counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  }
}

function checkMoves(accepted: MoveRecord[], finalMoves: Map<string, FinishedGame['moves']>): string[] {
  const problems: string[] = [];
  for (const move of accepted) {
    const moves = finalMoves.get(move.gameId);
    const stored = moves?.[move.index];
    const { number, option } = move.stored ?? move;
    if (!moves) problems.push(`${move.gameId}: no final state to check move ${move.index} against`);
    else if (!stored || stored.number !== number || stored.option !== option) {
      problems.push(
        `${move.gameId}: move ${move.index} (${number} ${option}) answered 2xx but is not stored`,
      );
    }
  }
  return problems;
}

type Totals = { playedGames: number; points: number; coins: number };

/** What the rewards rules pay for the finished games seen (DECISIONS "Rewards"). */
function expectedTotals(games: Iterable<FinishedGame>): Map<string, Totals> {
  const totals = new Map<string, Totals>();
  for (const { players, winner, endReason } of games) {
    for (const player of players) {
      const lostAt198 = winner !== null && player !== winner && endReason === 'reached198';
      const [points, coins] = player === winner ? [25, 10] : lostAt198 ? [5, 1] : [0, 0];
      const t = totals.get(player) ?? { playedGames: 0, points: 0, coins: 0 };
      totals.set(player, {
        playedGames: t.playedGames + 1,
        points: t.points + points,
        coins: t.coins + coins,
      });
    }
  }
  return totals;
}

/** The ack wait of the rewards consumers and a margin: an event held by a killed replica is back by then. */
const REWARDS_SETTLE_MAX_MS = 40_000;
/** With nothing killed, well under the ack wait: a held event given back late fails the check. */
const REWARDS_SETTLE_NO_KILL_MS = 5000;

/** The players whose rewards differ from what their finished games pay, as problems. */
async function rewardsMismatches(client: GatewayClient, expected: Map<string, Totals>): Promise<string[]> {
  const problems: string[] = [];
  for (const [playerId, want] of expected) {
    type Rewards = { playedGames: number; assets: { points: number; coins: number } };
    const answer = await client.request<Rewards>('GET', `/api/rewards/${playerId}`);
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
  return problems;
}

/** Something done to the stack `at` ms after the games start; resolves when it is over. */
export type Disruption = {
  name: string;
  at: number;
  /**
   * Whether players may see an outage (no answer, 502-504) from now on: a crashed NATS node or
   * database is one; a rollout must not be. Until the first such disruption, any failure counts.
   */
  outage: boolean;
  run: () => Promise<{ note: string } & Record<string, unknown>>;
};

export type DisruptionReport = {
  name: string;
  startedAt: string;
  tookMs: number;
  inFlightAtStart: number;
  clientsSaw: Record<string, number>;
} & Record<string, unknown>;

export type GamesReport = {
  games: number;
  finishedGames: number;
  acceptedMoves: number;
  sleeperTimeouts: number;
  playersCheckedForRewards: number;
  /** How long after the games ended every player's rewards matched them; null: never. */
  rewardsSettledMs: number | null;
  statuses: Record<string, number>;
  playerNotices: number;
  disruptions: DisruptionReport[];
  problems: string[];
  tookMs: number;
};

export type GamesOptions = {
  /** Player 1 of each game plays through the first entry point, player 2 through the second. */
  urls: [string, string];
  /**
   * Send a request again, once, when a kept-alive socket was reset before any answer (a proxy or
   * pod closing it as the request left), as browsers do; otherwise every failure counts.
   */
  retryResetReusedSocket?: boolean;
  games?: number;
  disruptions: Disruption[];
  /** Sleeper k's game times out during disruption k (shortest turn, slow play). */
  sleepers?: boolean;
};

const TURN_SECONDS = 60;
const SLEEPER_TURN_SECONDS = 14;
/** A sleeper's turn runs out this long after its last move: deadline + the timer's 4 s + 1 s. */
const SLEEPER_TIMEOUT_AFTER_MS = (SLEEPER_TURN_SECONDS + 4 + 1) * 1000;
/** Sleeper k's turn runs out this long after disruption k begins. */
const SLEEPER_TIMEOUT_AFTER_DISRUPTION_MS = 800;

export async function gamesDuring({
  urls,
  retryResetReusedSocket = false,
  games = 20,
  disruptions,
  sleepers: withSleepers = false,
}: GamesOptions): Promise<GamesReport> {
  const started = Date.now();
  const outcomes = new Outcomes();
  const onAnswer = (status: number | 'network', what: string, startedAt: number) =>
    outcomes.count(status, what, startedAt);
  const [first, second] = urls.map(
    (url) => new GatewayClient(url, { maxSockets: 64, timeoutMs: 15_000, onAnswer, retryResetReusedSocket }),
  ) as [GatewayClient, GatewayClient];
  const run = Date.now().toString(36);
  const pairs = async (count: number, prefix: string): Promise<Array<[Player, Player]>> => {
    const names = Array.from({ length: count }, (_, i) => [`${prefix}${run}a${i}`, `${prefix}${run}b${i}`]);
    const players = await enlist(first, names.flat());
    return names.map((_, i) => [
      players[2 * i] as Player,
      { ...(players[2 * i + 1] as Player), client: second },
    ]);
  };
  let playing = true;
  // A read of the room after 3 s without a push: the fallback every browser has.
  const fleet = (options: Omit<FleetOptions, 'jitter' | 'stallMs'>) =>
    new Fleet(outcomes, { jitter: 0.5, stallMs: 3000, ...options });
  const rooms = fleet({ duration: TURN_SECONDS, thinkMs: 700, keepPlaying: () => playing });
  // Slow play keeps a sleeper below 198 until its last move, just before disruption k.
  const sleepers = fleet({ duration: SLEEPER_TURN_SECONDS, thinkMs: 8000, keepPlaying: () => false });
  const roomPairs = await pairs(games, 'g');
  const sleeperPairs = withSleepers ? await pairs(disruptions.length, 's') : [];
  const t0 = Date.now();
  const startOf = (k: number) => t0 + (disruptions[k]?.at ?? 0);
  await Promise.all([
    ...roomPairs.map(([a, b]) => rooms.open(a, b)),
    ...sleeperPairs.map(([a, b], k) =>
      sleepers.open(a, b, startOf(k) + SLEEPER_TIMEOUT_AFTER_DISRUPTION_MS - SLEEPER_TIMEOUT_AFTER_MS),
    ),
  ]);

  const done: DisruptionReport[] = [];
  const problems: string[] = [];
  let outagesFrom = Infinity;
  for (const [k, disruption] of disruptions.entries()) {
    await sleep(Math.max(0, startOf(k) - Date.now()));
    const at = Date.now();
    // One that comes after sleeper k's turn ran out (the one before took longer than its window)
    // leaves that timeout to a stack with nothing disrupted.
    if (withSleepers && at > startOf(k) + SLEEPER_TIMEOUT_AFTER_DISRUPTION_MS)
      problems.push(`${disruption.name} came ${at - startOf(k)} ms late, after sleeper ${k}'s turn ran out`);
    if (disruption.outage) outagesFrom = Math.min(outagesFrom, at);
    const { note, ...details } = await disruption.run();
    const report: DisruptionReport = {
      name: disruption.name,
      startedAt: new Date(at).toISOString(),
      tookMs: Date.now() - at,
      inFlightAtStart: outcomes.inFlightAt(at),
      clientsSaw: outcomes.failuresBetween(at, Date.now()),
      ...details,
    };
    done.push(report);
    const failed = Object.values(report.clientsSaw).reduce((sum, n) => sum + n, 0);
    console.log(
      `  ${disruption.name.padEnd(36)} ${formatDuration(report.tookMs).padStart(7)} ${dim(note)}; ` +
        `clients saw ${JSON.stringify(report.clientsSaw)}` +
        dim(failed ? ` (${report.inFlightAtStart} in flight at the start)` : ''),
    );
  }

  // A new game after everything, then the games stop.
  playing = false;
  const afterwards = fleet({ duration: TURN_SECONDS, thinkMs: 100, keepPlaying: () => false });
  const [a, b] = (await pairs(1, 'n'))[0] as [Player, Player];
  const after = await afterwards.open(a, b);
  const deadline = Date.now() + 180_000;
  while (!outcomes.finishedIn(after) && Date.now() < deadline) await sleep(500);
  // The last finished games and the sleepers' timeouts reach rewards; then nothing moves any more.
  const lastSleeper = withSleepers ? startOf(disruptions.length - 1) + 10_000 : 0;
  await sleep(Math.max(5000, lastSleeper - Date.now()));
  for (const f of [rooms, sleepers, afterwards]) await f.stop();
  // Requests in flight at a kill may be answered after its window (a timeout): counted again now.
  for (const report of done) {
    const end = Date.parse(report.startedAt) + report.tookMs;
    const saw = outcomes.failuresBetween(Date.parse(report.startedAt), end);
    if (JSON.stringify(saw) === JSON.stringify(report.clientsSaw)) continue;
    report.clientsSaw = saw;
    console.log(
      `  ${report.name.padEnd(36)} clients saw ${JSON.stringify(saw)} in the end ${dim('(answered after the window)')}`,
    );
  }

  // Final moves of every game: finished ones as seen at game over, running ones as stored now.
  const finalMoves = new Map<string, FinishedGame['moves']>();
  for (const [id, game] of outcomes.finished) finalMoves.set(id, game.moves);
  for (const game of [...rooms.games, ...sleepers.games, after]) {
    if (!game.roomId) continue;
    const answer = await first.request<Pick<RoomView, 'whosTurn'>>('GET', `/api/rooms/${game.roomId}`);
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
  // Events a replica held as it was killed come again after their consumer's ack wait (30 s):
  // late, not lost. So after a kill the rewards are read until they match or that wait is over;
  // with none (a rollout), stopping replicas give theirs back, so they must match within seconds.
  const rewardsFrom = Date.now();
  const settleMaxMs = outagesFrom === Infinity ? REWARDS_SETTLE_NO_KILL_MS : REWARDS_SETTLE_MAX_MS;
  let mismatches = await rewardsMismatches(first, expected);
  while (mismatches.length > 0 && Date.now() - rewardsFrom < settleMaxMs) {
    await sleep(1000);
    mismatches = await rewardsMismatches(first, expected);
  }
  const rewardsSettledMs = mismatches.length === 0 ? Date.now() - rewardsFrom : null;
  problems.push(...mismatches);
  first.close();
  second.close();
  for (const { at, status, what } of outcomes.failures) {
    if (status === '500' || at < outagesFrom)
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
    rewardsSettledMs,
    statuses: Object.fromEntries(Object.entries(outcomes.byStatus).sort()),
    playerNotices: outcomes.notices,
    disruptions: done,
    problems,
    tookMs: Date.now() - started,
  };
  console.log(
    `  ${report.acceptedMoves} moves answered 2xx, ${report.finishedGames} games finished` +
      (withSleepers
        ? `, ${report.sleeperTimeouts}/${sleepers.games.length} timeouts during disruptions`
        : '') +
      `, rewards of ${report.playersCheckedForRewards} players checked` +
      (rewardsSettledMs === null ? '' : ` (settled ${formatDuration(rewardsSettledMs)} after)`) +
      `, ${report.playerNotices} stream cuts or stalls seen`,
  );
  console.log(`  answers by status: ${JSON.stringify(report.statuses)}`);
  for (const problem of problems.slice(0, 40)) console.log(red(`  ✗ ${problem}`));
  console.log(bold(`  ${problems.length} problems`));
  return report;
}
