/** SPEC §9: the "can't join" overlay shows for 2.5 s. */
export const JOIN_OVERLAY_MS = 2_500;

/** Why a player opens a room: to play in it or to watch it. */
export type RoomIntent = 'play' | 'watch';
