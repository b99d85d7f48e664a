import { mongoUrlFor, uniqueName, useTestInfra } from '@oasis198/testing';
import mongoose, { type Connection } from 'mongoose';
import { ArenaRepository } from './arena.repository';

const LEASE_MS = 5_000;

// At file level, so the suite's afterAll (closing the client) runs before the servers stop.
const infra = useTestInfra({ nats: false });

// The arena lease against the real database: one holder at a time, taken over once it runs out,
// and a standby that only reads it.
describe('the arena lease', () => {
  let connection: Connection;
  let repository: ArenaRepository;

  beforeAll(async () => {
    connection = await mongoose
      .createConnection(mongoUrlFor(infra(), uniqueName('arena-lease')), {
        serverSelectionTimeoutMS: 10_000,
        monitorCommands: true,
      })
      .asPromise();
    repository = new ArenaRepository(connection);
  });

  afterAll(async () => {
    await connection?.dropDatabase();
    await connection?.close();
  });

  it('has one holder at a time, is taken over when it runs out, and a standby writes nothing', async () => {
    const now = Date.now();
    const leases = connection.collection('leases');
    expect(await repository.holdLease('lease', 'a', LEASE_MS, now)).toBe(true);
    const held = await leases.findOne({ _id: 'lease' as never });

    const writes: string[] = [];
    connection.getClient().on('commandStarted', (e) => {
      if (['update', 'insert', 'findAndModify'].includes(e.commandName)) writes.push(e.commandName);
    });
    expect(await repository.holdLease('lease', 'b', LEASE_MS, now + 1000)).toBe(false);
    expect(writes).toEqual([]);
    expect(await leases.findOne({ _id: 'lease' as never })).toEqual(held);

    expect(await repository.holdLease('lease', 'a', LEASE_MS, now + 2000)).toBe(true);
    expect(writes).toEqual(['update']);
    expect(await repository.holdLease('lease', 'b', LEASE_MS, now + 2000 + LEASE_MS + 1)).toBe(true);
    expect(await repository.holdLease('lease', 'a', LEASE_MS, now + 2000 + LEASE_MS + 2)).toBe(false);
    expect(await leases.findOne({ _id: 'lease' as never })).toMatchObject({ owner: 'b' });
  });
});
