export { Leaderboard } from './Leaderboard';
