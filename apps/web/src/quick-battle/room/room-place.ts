import { createContext, useContext } from 'react';
import { T } from '../../texts';

/**
 * Where a room belongs: its back link, where Exit and a closed room lead, and whether its game is
 * followed by a rematch. A quick-battle room belongs to the room list; an arena room plays one game
 * and belongs to its event page, which pairs the player again (DECISIONS "Event cup arenas").
 */
export interface RoomPlace {
  home: string;
  homeLabel: string;
  rematch: boolean;
}

export const QUICK_BATTLE_PLACE: RoomPlace = {
  home: '/quick-battle/rooms',
  homeLabel: T.rooms,
  rematch: true,
};

export const RoomPlaceContext = createContext<RoomPlace>(QUICK_BATTLE_PLACE);

export function useRoomPlace(): RoomPlace {
  return useContext(RoomPlaceContext);
}
