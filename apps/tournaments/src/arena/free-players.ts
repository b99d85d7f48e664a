import { eventOfArena } from '@oasis198/contracts';
import type { EntrantDoc } from './arena.repository';

/** How the lease holder reads entrants: the arena's joined and unseated ones, or some by id. */
export interface EntrantReader {
  unseated(arenaId: string): Promise<EntrantDoc[]>;
  entrantsOf(arenaId: string, playerIds: readonly string[]): Promise<EntrantDoc[]>;
}

interface Known {
  /** When the arena's unseated entrants were last read whole. */
  readAt: number;
  /** A notice that named nobody came: read them whole at the next round. */
  whole: boolean;
  /** Players a notice or a release named since the last read: read again by id. */
  named: Set<string>;
  /** Players seated since the last read began: a read that began before their seat is stale. */
  seated: Set<string>;
  /** The joined players with no seat as last read, by player id (some may wait until `freeSince`). */
  unseated: Map<string, EntrantDoc>;
}

/** As the query `roomId: null` matches: a missing `roomId` too (FerretDB may store a join's so). */
const isUnseated = (e: EntrantDoc): boolean => e.joined && (e.roomId ?? null) === null;

/**
 * The lease holder's view of an arena's free players, kept between rounds. Every change that can
 * free a player (a join, a score, a release) names them in a notice or here, and a round reads
 * only the named ones, by id; the whole arena is read when the view is new, after a notice that
 * named nobody, and every `wholeEveryMs` in case a notice was lost. On FerretDB a whole read
 * decodes every entrant, and rounds come several times a second. The seat claims stay the
 * authority: a player read as free who is not any more costs a refused claim, not a double seat.
 */
export class FreePlayers {
  private readonly arenas = new Map<string, Known>();

  constructor(
    private readonly reader: EntrantReader,
    private readonly wholeEveryMs: number,
  ) {}

  /** The arena's players free at nowMs: joined, unseated, and not waiting for a later time. */
  async read(arenaId: string, nowMs: number): Promise<EntrantDoc[]> {
    const known = this.arenas.get(arenaId);
    if (!known || known.whole || nowMs - known.readAt >= this.wholeEveryMs) {
      // Kept before the read: what is named meanwhile is read again at the next round.
      const fresh: Known = {
        readAt: nowMs,
        whole: false,
        named: new Set(),
        seated: new Set(),
        unseated: new Map(),
      };
      this.forgetOthers(arenaId);
      this.arenas.set(arenaId, fresh);
      for (const e of await this.reader.unseated(arenaId))
        if (isUnseated(e)) fresh.unseated.set(e.playerId, e);
      return this.freeAt(fresh, nowMs);
    }
    if (known.named.size > 0) {
      const ids = [...known.named];
      known.named = new Set();
      known.seated = new Set();
      const read = new Map((await this.reader.entrantsOf(arenaId, ids)).map((e) => [e.playerId, e]));
      for (const id of ids) {
        const entrant = read.get(id);
        if (entrant && isUnseated(entrant)) known.unseated.set(id, entrant);
        else known.unseated.delete(id);
      }
    }
    return this.freeAt(known, nowMs);
  }

  /** Players of an event's arena whose entry may have changed; none named means anyone's may have. */
  named(eventId: string, playerIds: readonly string[]): void {
    for (const known of this.ofEvent(eventId)) {
      if (playerIds.length === 0) known.whole = true;
      for (const id of playerIds) known.named.add(id);
    }
  }

  /** Players of an event's arena just seated in a room: not free until a notice names them again. */
  seatedIn(eventId: string, playerIds: readonly string[]): void {
    for (const known of this.ofEvent(eventId)) {
      for (const id of playerIds) {
        known.unseated.delete(id);
        known.seated.add(id);
      }
    }
  }

  /** Players just paired: seated (or refused, and then named again by their release). */
  taken(arenaId: string, playerIds: readonly string[]): void {
    const known = this.arenas.get(arenaId);
    for (const id of playerIds) known?.unseated.delete(id);
  }

  /** Forgets every arena (this replica lost the lease: what it knew may be stale). */
  clear(): void {
    this.arenas.clear();
  }

  /** The views of an event's arenas (one, once an ended arena's is dropped). */
  private *ofEvent(eventId: string): Generator<Known> {
    for (const [arenaId, known] of this.arenas) if (eventOfArena(arenaId) === eventId) yield known;
  }

  private freeAt(known: Known, nowMs: number): EntrantDoc[] {
    // Seated while the read was out: it may have read them before their seat.
    for (const id of known.seated) if (!known.named.has(id)) known.unseated.delete(id);
    return [...known.unseated.values()].filter((e) => e.freeSince <= nowMs);
  }

  /** One view per arena being paired: an ended arena's is dropped when a new one is read. */
  private forgetOthers(arenaId: string): void {
    for (const id of this.arenas.keys()) {
      if (id !== arenaId && eventOfArena(id) === eventOfArena(arenaId)) this.arenas.delete(id);
    }
  }
}
