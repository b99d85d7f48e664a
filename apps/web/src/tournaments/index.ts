export {
  TournamentsLayout,
  TournamentsHome,
  Quote,
  WorldCup,
  ContinentalCup,
  ContinentPage,
  CountryCup,
  CityCup,
  EventCup,
} from './Tournaments';
export { ArenaRoom } from './ArenaRoom';
