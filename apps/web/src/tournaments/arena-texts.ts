/** The Event cup arena's words (DECISIONS "Event cup arenas"). */
export const ARENA_T = {
  startsIn: 'Starts in',
  endsIn: 'Ends in',
  ended: 'Ended',
  join: 'Join',
  leave: 'Leave',
  loginToJoin: 'Log in to join',
  standings: 'Standings',
  lastStandings: 'Final standings of the last arena',
  noPlayers: 'Nobody has joined yet.',
  rank: 'Rank',
  player: 'Player',
  score: 'Score',
  games: 'Games',
  joined: 'You are in. You are paired as soon as another player is free.',
  yourGame: 'Your arena game is ready',
  toGame: 'Go to your game',
  timeLeft: 'Time left',
  yourScore: 'Your score',
  arena: 'Arena',
  backToArena: 'Back to the arena',
} as const;

/** mm:ss of a duration in ms, never negative. */
export function mmss(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  return `${String(minutes).padStart(2, '0')}:${String(total % 60).padStart(2, '0')}`;
}
