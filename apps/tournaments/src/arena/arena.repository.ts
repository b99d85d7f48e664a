import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import type { ArenaStanding, Person } from '@oasis198/contracts';
import { isDuplicateKeyError } from '@oasis198/service-kit';
import type { Collection } from 'mongodb';
import type { Connection } from 'mongoose';

/** An arena that someone joined; `final` and `finishedAt` are set once at its end. */
export interface ArenaDoc {
  _id: string;
  eventId: string;
  startsAt: number;
  endsAt: number;
  final: ArenaStanding[] | null;
  /** Places whose prize rewards has confirmed. */
  paidPlaces: number[];
  finishedAt: number | null;
}

/** A player in an arena. */
export interface EntrantDoc {
  _id: string;
  arenaId: string;
  playerId: string;
  name: string;
  /** Paired when free; a Leave, or leaving a game, clears it until the next Join. */
  joined: boolean;
  score: number;
  wins: number;
  games: number;
  reachedAt: number;
  /** The arena room the player is seated in (or about to be); null when free. */
  roomId: string | null;
  /** When the claim of `roomId` was written (absent on seats claimed before it was kept). */
  seatedAt?: number;
  lastOpponent: string | null;
  /** Since when the player waits; a time ahead means "not before". */
  freeSince: number;
  /** Game ids already scored: a redelivered game.finished scores nothing twice. */
  scored: string[];
}

export type PairingState = 'opening' | 'playing' | 'finished' | 'failed';

/** One arena game: the room (its id is the pairing's) and its two players. */
export interface PairingDoc {
  _id: string;
  arenaId: string;
  players: Person[];
  state: PairingState;
  at: number;
}

/** One player's side of a finished arena game, as score() writes it. */
export interface ScoredGame {
  gameId: string;
  tally: { score: number; wins: number; games: number };
  opponent: string;
  at: number;
  /** They left the game (or never moved in an aborted one): not paired again until a new Join. */
  left: boolean;
}

export const entrantId = (arenaId: string, playerId: string): string => `${arenaId}|${playerId}`;

/** The tournaments' durable state: one MongoDB document per arena, entrant and pairing. */
@Injectable()
export class ArenaRepository implements OnModuleInit {
  private readonly arenas: Collection<ArenaDoc>;
  private readonly entrants: Collection<EntrantDoc>;
  private readonly pairings: Collection<PairingDoc>;
  private readonly leases: Collection<{ _id: string; owner: string; until: number }>;

  constructor(@InjectConnection() connection: Connection) {
    const db = connection.db;
    if (!db) throw new Error('the tournaments database is not connected');
    this.arenas = db.collection<ArenaDoc>('arenas');
    this.entrants = db.collection<EntrantDoc>('entrants');
    this.pairings = db.collection<PairingDoc>('pairings');
    this.leases = db.collection('leases');
  }

  async onModuleInit(): Promise<void> {
    await this.entrants.createIndex({ arenaId: 1, joined: 1, roomId: 1 });
    await this.pairings.createIndex({ arenaId: 1, state: 1 });
    await this.arenas.createIndex({ finishedAt: 1, endsAt: 1 });
  }

  async ensureArena(arena: Pick<ArenaDoc, '_id' | 'eventId' | 'startsAt' | 'endsAt'>): Promise<void> {
    await this.arenas.updateOne(
      { _id: arena._id },
      { $setOnInsert: { ...arena, final: null, paidPlaces: [], finishedAt: null } },
      { upsert: true },
    );
  }

  async standingsOf(arenaId: string): Promise<EntrantDoc[]> {
    return this.entrants.find({ arenaId }).toArray();
  }

  /** The named players' entries in the arena, by id (lists of 100: FerretDB's `_id` index serves those). */
  async entrantsOf(arenaId: string, playerIds: readonly string[]): Promise<EntrantDoc[]> {
    const found: EntrantDoc[] = [];
    for (let i = 0; i < playerIds.length; i += 100) {
      const ids = playerIds.slice(i, i + 100).map((playerId) => entrantId(arenaId, playerId));
      found.push(...(await this.entrants.find({ _id: { $in: ids } }).toArray()));
    }
    return found;
  }

  async entrant(arenaId: string, playerId: string): Promise<EntrantDoc | null> {
    return this.entrants.findOne({ _id: entrantId(arenaId, playerId) });
  }

  /** Joins (or joins again): a new entrant starts at 0, one who comes back keeps their score. */
  async join(arenaId: string, player: Person, nowMs: number): Promise<void> {
    const filter = { _id: entrantId(arenaId, player.id) };
    const update = {
      $set: { joined: true, name: player.name },
      $setOnInsert: {
        arenaId,
        playerId: player.id,
        score: 0,
        wins: 0,
        games: 0,
        reachedAt: nowMs,
        roomId: null,
        lastOpponent: null,
        freeSince: nowMs,
        scored: [],
      },
    };
    try {
      await this.entrants.updateOne(filter, update, { upsert: true });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      await this.entrants.updateOne(filter, { $set: update.$set });
    }
  }

  async leave(arenaId: string, playerId: string): Promise<boolean> {
    const left = await this.entrants.updateOne(
      { _id: entrantId(arenaId, playerId) },
      { $set: { joined: false } },
    );
    return left.matchedCount === 1;
  }

  /** Joined players in no room (some may wait until their `freeSince`). */
  async unseated(arenaId: string): Promise<EntrantDoc[]> {
    return this.entrants.find({ arenaId, joined: true, roomId: null }).toArray();
  }

  /**
   * Seats each pairing's players in its room if they are joined and free, in one write (a guarded
   * update per player); how many of each pairing's players sit in its room then (fewer than its
   * players when one was not free any more: releaseSeats gives the others back), read back only
   * when a claim was refused.
   */
  async claimSeats(pairings: readonly PairingDoc[], nowMs: number): Promise<Map<string, number>> {
    if (pairings.length === 0) return new Map();
    const claims = pairings.flatMap((pairing) =>
      pairing.players.map((p) => ({
        updateOne: {
          filter: { _id: entrantId(pairing.arenaId, p.id), joined: true, roomId: null },
          update: { $set: { roomId: pairing._id, seatedAt: nowMs } },
        },
      })),
    );
    const written = await this.entrants.bulkWrite(claims, { ordered: false });
    // Each claim changes one entrant at most: when every one did, every player sits where their
    // pairing says, and the read that would tell which did not is not needed.
    if (written.modifiedCount === claims.length)
      return new Map(pairings.map((p) => [p._id, p.players.length]));
    return this.seatedIn(pairings);
  }

  /**
   * Frees players seated in pairings that did not open, in one write; each one's `notBefore` is
   * when they wait from (or, ahead, from when they may be paired again). A seat of another
   * pairing is kept.
   */
  async releaseSeats(
    seats: ReadonlyArray<{ arenaId: string; roomId: string; playerId: string; notBefore: number }>,
  ): Promise<void> {
    if (seats.length === 0) return;
    await this.entrants.bulkWrite(
      seats.map(({ arenaId, roomId, playerId, notBefore }) => ({
        updateOne: {
          filter: { _id: entrantId(arenaId, playerId), roomId },
          update: { $set: { roomId: null, freeSince: notBefore } },
        },
      })),
      { ordered: false },
    );
  }

  /**
   * Scores games for their players, once each, in one write: each update is refused when the game
   * id is already in the entrant's `scored`, and it frees the player. How many it scored (0 for
   * redeliveries). The caller tells the replicas that the standings changed (ArenaService.changed).
   */
  async score(
    scores: ReadonlyArray<{ arenaId: string; playerId: string; game: ScoredGame }>,
  ): Promise<number> {
    if (scores.length === 0) return 0;
    const scored = await this.entrants.bulkWrite(
      scores.map(({ arenaId, playerId, game }) => ({
        updateOne: {
          filter: { _id: entrantId(arenaId, playerId), scored: { $ne: game.gameId } },
          update: {
            $inc: game.tally,
            $push: { scored: game.gameId },
            $set: {
              roomId: null,
              freeSince: game.at,
              lastOpponent: game.opponent,
              ...(game.tally.score > 0 ? { reachedAt: game.at } : {}),
              ...(game.left ? { joined: false } : {}),
            },
          },
        },
      })),
      { ordered: false },
    );
    return scored.modifiedCount;
  }

  async arena(arenaId: string): Promise<ArenaDoc | null> {
    return this.arenas.findOne({ _id: arenaId });
  }

  /** Arenas ended by `nowMs` and not yet finished (their standings or prizes still to settle). */
  async unfinishedArenas(nowMs: number): Promise<ArenaDoc[]> {
    return this.arenas.find({ finishedAt: null, endsAt: { $lte: nowMs } }).toArray();
  }

  /** Writes the arena's final standings, once. */
  async setFinal(arenaId: string, final: NonNullable<ArenaDoc['final']>): Promise<void> {
    await this.arenas.updateOne({ _id: arenaId, final: null }, { $set: { final } });
  }

  async markPaid(arenaId: string, place: number): Promise<void> {
    await this.arenas.updateOne({ _id: arenaId }, { $addToSet: { paidPlaces: place } });
  }

  async markFinished(arenaId: string, nowMs: number): Promise<void> {
    await this.arenas.updateOne({ _id: arenaId }, { $set: { finishedAt: nowMs } });
  }

  async pairing(roomId: string): Promise<PairingDoc | null> {
    return this.pairings.findOne({ _id: roomId });
  }

  async pairingsOf(roomIds: readonly string[]): Promise<PairingDoc[]> {
    return this.pairings.find({ _id: { $in: [...roomIds] } }).toArray();
  }

  async finishPairings(roomIds: readonly string[]): Promise<void> {
    await this.pairings.updateMany({ _id: { $in: [...roomIds] } }, { $set: { state: 'finished' } });
  }

  async addPairings(pairings: readonly PairingDoc[]): Promise<void> {
    if (pairings.length === 0) return;
    await this.pairings.insertMany([...pairings]);
  }

  /** Pairings still opening that were started before `before` (a replica stopped half way). */
  async openingSince(before: number): Promise<PairingDoc[]> {
    return this.pairings.find({ state: 'opening', at: { $lt: before } }).toArray();
  }

  /**
   * Seats claimed before `before` in rooms that have no pairing: their pairing's write failed, or
   * its replica stopped, after the claim (the two are written side by side).
   */
  async orphanSeats(before: number): Promise<Array<{ arenaId: string; roomId: string; playerId: string }>> {
    const seated = await this.entrants
      .find(
        { roomId: { $ne: null }, seatedAt: { $lt: before } },
        { projection: { arenaId: 1, playerId: 1, roomId: 1 } },
      )
      .toArray();
    const rooms = [...new Set(seated.flatMap((e) => (e.roomId ? [e.roomId] : [])))];
    const known = new Set<string>();
    // Lists of 100 at most: FerretDB finds those through the `_id` index.
    for (let i = 0; i < rooms.length; i += 100) {
      const found = await this.pairings
        .find({ _id: { $in: rooms.slice(i, i + 100) } }, { projection: { _id: 1 } })
        .toArray();
      for (const { _id } of found) known.add(_id);
    }
    return seated.flatMap(({ arenaId, playerId, roomId }) =>
      roomId && !known.has(roomId) ? [{ arenaId, playerId, roomId }] : [],
    );
  }

  /**
   * How many of each pairing's players are seated in its room, by pairing, in one read; with
   * `joined`, only those who have not left the arena since.
   */
  async seatedIn(
    pairings: ReadonlyArray<Pick<PairingDoc, '_id' | 'arenaId' | 'players'>>,
    { joined = false } = {},
  ): Promise<Map<string, number>> {
    const seated = new Map(pairings.map((p) => [p._id, 0]));
    if (pairings.length === 0) return seated;
    const entrants = await this.entrants
      .find(
        {
          _id: {
            $in: pairings.flatMap((pairing) => pairing.players.map((p) => entrantId(pairing.arenaId, p.id))),
          },
          roomId: { $in: pairings.map((p) => p._id) },
          ...(joined && { joined: true }),
        },
        { projection: { roomId: 1 } },
      )
      .toArray();
    for (const { roomId } of entrants) {
      if (roomId !== null && seated.has(roomId)) seated.set(roomId, (seated.get(roomId) ?? 0) + 1);
    }
    return seated;
  }

  /**
   * Ends the opening of the pairings still opening: a game scored meanwhile (its room opened by a
   * try whose answer was lost) stays finished, and is never counted open again.
   */
  async setPairings(roomIds: readonly string[], state: 'playing' | 'failed'): Promise<void> {
    if (roomIds.length === 0) return;
    await this.pairings.updateMany({ _id: { $in: [...roomIds] }, state: 'opening' }, { $set: { state } });
  }

  async openPairings(arenaId: string): Promise<number> {
    return this.pairings.countDocuments({ arenaId, state: { $in: ['opening', 'playing'] } });
  }

  /**
   * Takes the named lease, or renews it for its owner; false while another owner holds it. A lease
   * another owner holds is only read: a standby's every round costs no write.
   */
  async holdLease(name: string, owner: string, ms: number, nowMs: number): Promise<boolean> {
    const current = await this.leases.findOne({ _id: name });
    if (current && current.owner !== owner && current.until >= nowMs) return false;
    const held = await this.leases.updateOne(
      { _id: name, $or: [{ owner }, { until: { $lt: nowMs } }] },
      { $set: { owner, until: nowMs + ms } },
    );
    if (held.matchedCount === 1) return true;
    try {
      await this.leases.insertOne({ _id: name, owner, until: nowMs + ms });
      return true;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      return false;
    }
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    await this.leases.updateOne({ _id: name, owner }, { $set: { until: 0 } });
  }
}
