import type { EntrantDoc } from './arena.repository';
import { entrantDoc } from './arena.fixtures';
import { type EntrantReader, FreePlayers } from './free-players';

const ARENA = 'event-9:1000';
const entrant = (playerId: string, fields: Partial<EntrantDoc> = {}): EntrantDoc =>
  entrantDoc(ARENA, playerId, fields);

/** The entrants as the database holds them, and every read the view made. */
function database(...entrants: EntrantDoc[]) {
  const rows = new Map(entrants.map((e) => [e.playerId, e]));
  const reads: string[] = [];
  let duringRead: () => void = () => undefined;
  const reader: EntrantReader = {
    unseated: async () => {
      reads.push('whole');
      const found = [...rows.values()].filter((e) => e.joined && (e.roomId ?? null) === null);
      duringRead();
      return found;
    },
    entrantsOf: async (_arenaId, ids) => {
      reads.push(`by id ${[...ids].sort().join(',')}`);
      const found = ids.flatMap((id) => rows.get(id) ?? []);
      duringRead();
      return found;
    },
  };
  return {
    reader,
    reads,
    set: (e: EntrantDoc) => rows.set(e.playerId, e),
    onRead: (f: () => void) => (duringRead = f),
  };
}

const ids = (entrants: EntrantDoc[]): string[] => entrants.map((e) => e.playerId).sort();

describe('FreePlayers', () => {
  it('reads the arena whole once, then only the players named since', async () => {
    // Ann's entry is as a join writes it, before any seat: no roomId at all.
    const db = database(
      { ...entrant('ann'), roomId: undefined } as unknown as EntrantDoc,
      entrant('ben'),
      entrant('cat', { roomId: 'r1' }),
    );
    const free = new FreePlayers(db.reader, 5_000);
    expect(ids(await free.read(ARENA, 0))).toEqual(['ann', 'ben']);
    free.taken(ARENA, ['ann', 'ben']);
    db.set(entrant('ann', { roomId: 'r2' }));
    db.set(entrant('ben', { roomId: 'r2' }));
    expect(await free.read(ARENA, 100)).toEqual([]);

    // Cat's game was scored (her notice names her); Ann's seat was given back (rooms found her
    // busy: she waits until 150), and Ben's, named beside her, was not.
    db.set(entrant('cat'));
    db.set(entrant('ann', { freeSince: 150 }));
    free.named('event-9', ['cat']);
    free.named('event-9', ['ann', 'ben']);
    free.named('event-2', ['dan']);
    expect(ids(await free.read(ARENA, 200))).toEqual(['ann', 'cat']);
    expect(db.reads).toEqual(['whole', 'by id ann,ben,cat']);
  });

  it('keeps a player who waits until later, and drops one who left or was seated', async () => {
    const db = database(entrant('ann', { freeSince: 1_000 }), entrant('ben'), entrant('cat'));
    const free = new FreePlayers(db.reader, 5_000);
    expect(ids(await free.read(ARENA, 0))).toEqual(['ben', 'cat']);
    db.set(entrant('ben', { joined: false }));
    db.set(entrant('cat', { roomId: 'r2' }));
    free.named('event-9', ['ben', 'cat']);
    expect(await free.read(ARENA, 500)).toEqual([]);
    expect(ids(await free.read(ARENA, 1_000))).toEqual(['ann']);
    expect(db.reads).toEqual(['whole', 'by id ben,cat']);
  });

  it('reads whole again after a notice naming nobody, after its period, and once cleared', async () => {
    const db = database(entrant('ann'));
    const free = new FreePlayers(db.reader, 5_000);
    await free.read(ARENA, 0);
    // A change nobody announced (a lost notice) shows at the next whole read.
    db.set(entrant('ben'));
    expect(ids(await free.read(ARENA, 4_999))).toEqual(['ann']);
    expect(ids(await free.read(ARENA, 5_000))).toEqual(['ann', 'ben']);
    free.named('event-9', []);
    await free.read(ARENA, 5_100);
    free.clear();
    await free.read(ARENA, 5_200);
    expect(db.reads).toEqual(['whole', 'whole', 'whole', 'whole']);
  });

  it('reads a player named during a read again at the next round', async () => {
    const db = database(entrant('ann'), entrant('ben', { roomId: 'r1' }));
    const free = new FreePlayers(db.reader, 5_000);
    // Ben's score lands while the whole read is out, after it passed him.
    db.onRead(() => {
      db.set(entrant('ben'));
      free.named('event-9', ['ben']);
      db.onRead(() => undefined);
    });
    expect(ids(await free.read(ARENA, 0))).toEqual(['ann']);
    expect(ids(await free.read(ARENA, 100))).toEqual(['ann', 'ben']);
    expect(db.reads).toEqual(['whole', 'by id ben']);
  });

  it('does not offer a player seated while a read was out, until a notice names them again', async () => {
    const db = database(entrant('ann'), entrant('ben'), entrant('cat'));
    const free = new FreePlayers(db.reader, 5_000);
    // An opening seats Ann and Ben after the read passed them; its notice comes during the read.
    db.onRead(() => {
      free.seatedIn('event-9', ['ann', 'ben']);
      db.onRead(() => undefined);
    });
    expect(ids(await free.read(ARENA, 0))).toEqual(['cat']);
    expect(ids(await free.read(ARENA, 100))).toEqual(['cat']);
    // Ann's game is scored: her notice names her, and she is read again.
    free.named('event-9', ['ann']);
    expect(ids(await free.read(ARENA, 200))).toEqual(['ann', 'cat']);
    expect(db.reads).toEqual(['whole', 'by id ann']);
  });

  it("forgets an event's ended arena when its next one is read", async () => {
    const db = database(entrant('ann'));
    const free = new FreePlayers(db.reader, 5_000);
    await free.read(ARENA, 0);
    await free.read('event-9:2000', 0);
    free.named('event-9', ['ann']);
    await free.read('event-9:2000', 100);
    // The ended arena's view is gone: read whole, not by id.
    await free.read(ARENA, 100);
    expect(db.reads).toEqual(['whole', 'whole', 'by id ann', 'whole']);
  });
});
