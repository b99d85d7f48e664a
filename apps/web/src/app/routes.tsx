import { lazy, type ComponentType } from 'react';
import type { RouteObject } from 'react-router-dom';
import { Home } from '../home/Home';
import { ErrorView } from './ErrorView';
import { Layout } from './Layout';
import { Splash } from './Splash';

/** One lazily loaded chunk per screen group; each screen is a named export of its group. */
function screen<M, K extends keyof M>(load: () => Promise<M>, name: K) {
  return lazy(async () => ({ default: (await load())[name] as ComponentType }));
}

const accounts = () => import('../accounts');
const profile = () => import('../profile');
const leaderboard = () => import('../leaderboard');
const quickBattle = () => import('../quick-battle');
const room = () => import('../quick-battle/room');
const tournaments = () => import('../tournaments');

const Login = screen(accounts, 'Login');
const Join = screen(accounts, 'Join');
const ForgetPassword = screen(accounts, 'ForgetPassword');
const ResetPassword = screen(accounts, 'ResetPassword');
const Profile = screen(profile, 'Profile');
const Leaderboard = screen(leaderboard, 'Leaderboard');
const QuickBattleLayout = screen(quickBattle, 'QuickBattleLayout');
const QuickBattleHome = screen(quickBattle, 'QuickBattleHome');
const RoomList = screen(quickBattle, 'RoomList');
const CreateRoom = screen(quickBattle, 'CreateRoom');
const RoomScreen = screen(room, 'RoomScreen');
const TournamentsLayout = screen(tournaments, 'TournamentsLayout');
const TournamentsHome = screen(tournaments, 'TournamentsHome');
const Quote = screen(tournaments, 'Quote');
const WorldCup = screen(tournaments, 'WorldCup');
const ContinentalCup = screen(tournaments, 'ContinentalCup');
const ContinentPage = screen(tournaments, 'ContinentPage');
const CountryCup = screen(tournaments, 'CountryCup');
const CityCup = screen(tournaments, 'CityCup');
const EventCup = screen(tournaments, 'EventCup');
const ArenaRoom = screen(tournaments, 'ArenaRoom');

/** SPEC §2's routes. Any unknown path shows home. */
export const routes: RouteObject[] = [
  {
    path: '/',
    element: <Layout />,
    errorElement: <ErrorView />,
    children: [
      { index: true, element: <Home /> },
      { path: 'splash', element: <Splash /> },
      { path: 'login', element: <Login /> },
      { path: 'join', element: <Join /> },
      { path: 'forget-password', element: <ForgetPassword /> },
      { path: 'reset-password', element: <ResetPassword /> },
      { path: 'profile', element: <Profile /> },
      { path: 'leaderboard', element: <Leaderboard /> },
      {
        path: 'quick-battle',
        element: <QuickBattleLayout />,
        children: [
          { index: true, element: <QuickBattleHome /> },
          { path: 'rooms', element: <RoomList /> },
          { path: 'rooms/:roomId', element: <RoomScreen /> },
          { path: 'create', element: <CreateRoom /> },
        ],
      },
      // DECISIONS "Event cup arenas": an arena room's route; the game layer shows as in quick battle.
      { path: 'tournament/rooms/:roomId', element: <ArenaRoom /> },
      {
        path: 'tournaments',
        element: <TournamentsLayout />,
        children: [
          { index: true, element: <TournamentsHome /> },
          { path: 'quote', element: <Quote /> },
          { path: 'world-cup', element: <WorldCup /> },
          { path: 'coninental-cup', element: <ContinentalCup /> },
          { path: 'coninental-cup/:continentId', element: <ContinentPage /> },
          { path: 'country-cup', element: <CountryCup /> },
          { path: 'country-cup/:choiceId', element: <CountryCup /> },
          { path: 'city-cup', element: <CityCup /> },
          { path: 'city-cup/:choiceId', element: <CityCup /> },
          { path: 'event-cup', element: <EventCup /> },
          { path: 'event-cup/:choiceId', element: <EventCup /> },
        ],
      },
      { path: '*', element: <Home /> },
    ],
  },
];
