import { type EntrantDoc, entrantId, type PairingDoc } from './arena.repository';

/** An arena's entrant as a join writes it, free since `freeSince`, with `fields` changed. */
export const entrantDoc = (
  arenaId: string,
  playerId: string,
  fields: Partial<EntrantDoc> = {},
): EntrantDoc => ({
  _id: entrantId(arenaId, playerId),
  arenaId,
  playerId,
  name: playerId,
  joined: true,
  score: 0,
  wins: 0,
  games: 0,
  reachedAt: fields.freeSince ?? 0,
  roomId: null,
  lastOpponent: null,
  freeSince: 0,
  scored: [],
  ...fields,
});

/** A pairing of `a` and `b` in room `roomId`, as a batch writes it before rooms opens the room. */
export const pairingDoc = (arenaId: string, roomId: string, a: string, b: string): PairingDoc => ({
  _id: roomId,
  arenaId,
  players: [
    { id: a, name: a },
    { id: b, name: b },
  ],
  state: 'opening',
  at: 0,
});
