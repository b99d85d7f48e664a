import { mongoUrlFor, uniqueName, useTestInfra } from '@oasis198/testing';
import mongoose, { type Connection } from 'mongoose';
import { ArenaRepository, type PairingDoc } from './arena.repository';
import { entrantDoc } from './entrant.fixtures';

// At file level, so the suite's afterAll (closing the client) runs before the servers stop.
const infra = useTestInfra({ nats: false });

const ARENA = 'event-9:1';
const pairing = (roomId: string, a: string, b: string): PairingDoc => ({
  _id: roomId,
  arenaId: ARENA,
  players: [
    { id: a, name: a },
    { id: b, name: b },
  ],
  state: 'opening',
  at: 0,
});

// The seats of a batch against the real database: one write, read back only when a claim was refused.
describe('arena seats', () => {
  let connection: Connection;
  let repository: ArenaRepository;
  const commands: string[] = [];

  beforeAll(async () => {
    connection = await mongoose
      .createConnection(mongoUrlFor(infra(), uniqueName('arena-seats')), {
        serverSelectionTimeoutMS: 10_000,
        monitorCommands: true,
      })
      .asPromise();
    repository = new ArenaRepository(connection);
    connection.getClient().on('commandStarted', (e) => commands.push(e.commandName));
  });

  afterAll(async () => {
    await connection?.dropDatabase();
    await connection?.close();
  });

  it('seats a batch whose players are all free in one write, and reads who sits only after a refusal', async () => {
    const entrants = connection.collection('entrants');
    await entrants.insertMany([
      entrantDoc(ARENA, 'ann'),
      entrantDoc(ARENA, 'bob'),
      entrantDoc(ARENA, 'cy'),
      entrantDoc(ARENA, 'dee'),
      entrantDoc(ARENA, 'eve', { roomId: 'elsewhere' }),
      entrantDoc(ARENA, 'fay', { joined: false }),
    ] as never[]);

    commands.length = 0;
    const free = await repository.claimSeats([pairing('r1', 'ann', 'bob'), pairing('r2', 'cy', 'dee')], 5);
    expect(free).toEqual(
      new Map([
        ['r1', 2],
        ['r2', 2],
      ]),
    );
    expect(commands).toEqual(['update']);
    expect(await entrants.findOne({ playerId: 'bob' })).toMatchObject({ roomId: 'r1', seatedAt: 5 });

    // Ann sits in r1 already, Eve elsewhere, and Fay has left: only Dee (freed again) is seated.
    await entrants.updateOne({ playerId: 'dee' }, { $set: { roomId: null } });
    commands.length = 0;
    const refused = await repository.claimSeats(
      [pairing('r3', 'ann', 'dee'), pairing('r4', 'eve', 'fay')],
      6,
    );
    expect(refused).toEqual(
      new Map([
        ['r3', 1],
        ['r4', 0],
      ]),
    );
    expect(commands).toEqual(['update', 'find']);
    expect(await entrants.findOne({ playerId: 'ann' })).toMatchObject({ roomId: 'r1', seatedAt: 5 });
    expect(await entrants.findOne({ playerId: 'eve' })).toMatchObject({ roomId: 'elsewhere' });
  });
});
