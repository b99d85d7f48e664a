import { mongoUrlFor, uniqueName, useTestInfra } from '@oasis198/testing';
import mongoose, { type Connection } from 'mongoose';
import { entrantDoc, pairingDoc } from './arena.fixtures';
import { ArenaRepository } from './arena.repository';

const LEASE_MS = 5_000;
const ARENA = 'event-9:1';

// At file level, so the suite's afterAll (closing the client) runs before the servers stop.
const infra = useTestInfra({ nats: false });

// The repository's guarded writes against the real database, with the commands it sends counted.
describe('ArenaRepository', () => {
  let connection: Connection;
  let repository: ArenaRepository;
  /** The commands sent since the test last emptied it. */
  const commands: string[] = [];

  beforeAll(async () => {
    connection = await mongoose
      .createConnection(mongoUrlFor(infra(), uniqueName('arena-repository')), {
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

  // The arena lease: one holder at a time, taken over once it runs out, and a standby that only reads it.
  it('has one holder at a time, is taken over when it runs out, and a standby writes nothing', async () => {
    const now = Date.now();
    const leases = connection.collection('leases');
    expect(await repository.holdLease('lease', 'a', LEASE_MS, now)).toBe(true);
    const held = await leases.findOne({ _id: 'lease' as never });

    commands.length = 0;
    const writes = () => commands.filter((c) => ['update', 'insert', 'findAndModify'].includes(c));
    expect(await repository.holdLease('lease', 'b', LEASE_MS, now + 1000)).toBe(false);
    expect(writes()).toEqual([]);
    expect(await leases.findOne({ _id: 'lease' as never })).toEqual(held);

    expect(await repository.holdLease('lease', 'a', LEASE_MS, now + 2000)).toBe(true);
    expect(writes()).toEqual(['update']);
    expect(await repository.holdLease('lease', 'b', LEASE_MS, now + 2000 + LEASE_MS + 1)).toBe(true);
    expect(await repository.holdLease('lease', 'a', LEASE_MS, now + 2000 + LEASE_MS + 2)).toBe(false);
    expect(await leases.findOne({ _id: 'lease' as never })).toMatchObject({ owner: 'b' });
  });

  // The seats of a batch: one write, read back only when a claim was refused.
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
    const free = await repository.claimSeats(
      [pairingDoc(ARENA, 'r1', 'ann', 'bob'), pairingDoc(ARENA, 'r2', 'cy', 'dee')],
      5,
    );
    expect(Object.fromEntries(free)).toEqual({ r1: 2, r2: 2 });
    expect(commands).toEqual(['update']);
    expect(await entrants.findOne({ playerId: 'bob' })).toMatchObject({ roomId: 'r1', seatedAt: 5 });

    // Ann sits in r1 already, Eve elsewhere, and Fay has left: only Dee (freed again) is seated.
    await entrants.updateOne({ playerId: 'dee' }, { $set: { roomId: null } });
    commands.length = 0;
    const refused = await repository.claimSeats(
      [pairingDoc(ARENA, 'r3', 'ann', 'dee'), pairingDoc(ARENA, 'r4', 'eve', 'fay')],
      6,
    );
    expect(Object.fromEntries(refused)).toEqual({ r3: 1, r4: 0 });
    expect(commands).toEqual(['update', 'find']);
    expect(await entrants.findOne({ playerId: 'ann' })).toMatchObject({ roomId: 'r1', seatedAt: 5 });
    expect(await entrants.findOne({ playerId: 'eve' })).toMatchObject({ roomId: 'elsewhere' });
  });
});
