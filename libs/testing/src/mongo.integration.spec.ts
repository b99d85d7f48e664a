import mongoose, { type Connection } from 'mongoose';
import { mongoUrlFor, uniqueName, useTestInfra } from './index';

// The MongoDB guarantees the services rely on, checked against the real server startTestInfra()
// provides (FerretDB behind the launcher's write-serializing proxy when run locally).
// At file level, so the suite's own afterAll hooks (closing clients) run before the servers stop.
const infra = useTestInfra({ nats: false });

describe('MongoDB server from startTestInfra()', () => {
  let connection: Connection;

  beforeAll(async () => {
    // A pool larger than 1, so the concurrent attempts below really run side by side.
    connection = await mongoose
      .createConnection(mongoUrlFor(infra(), uniqueName('testing-mongo')), {
        maxPoolSize: 20,
        serverSelectionTimeoutMS: 10_000,
      })
      .asPromise();
  });

  afterAll(async () => {
    await connection?.dropDatabase();
    await connection?.close();
  });

  it('refuses a duplicate key on a unique index with E11000', async () => {
    const User = connection.model(
      'User',
      new mongoose.Schema({ email: { type: String, required: true, unique: true } }),
    );
    await User.init();
    await User.create({ email: 'ada@example.test' });

    await expect(User.create({ email: 'ada@example.test' })).rejects.toMatchObject({ code: 11000 });
    expect(await User.countDocuments({ email: 'ada@example.test' })).toBe(1);
  });

  it('honours every condition of a filter that names an _id, and finds the _id through its index', async () => {
    // tools/ferretdb/_patches: FerretDB looks an _id up through the _id index whatever else the
    // filter holds, and still applies the rest of the filter.
    const db = connection.db;
    if (!db) throw new Error('not connected');
    const collection = db.collection<{ _id: string; version: number }>('guarded');
    await collection.insertMany([
      { _id: 'g1', version: 3 },
      { _id: 'g2', version: 3 },
    ]);

    expect(
      (await collection.updateOne({ _id: 'g1', version: 2 }, { $set: { version: 9 } })).matchedCount,
    ).toBe(0);
    expect(
      (await collection.updateOne({ _id: 'g1', version: 3 }, { $set: { version: 4 } })).matchedCount,
    ).toBe(1);
    expect(await collection.findOne({ _id: 'g1', version: { $gt: 3 } })).toEqual({ _id: 'g1', version: 4 });
    expect(await collection.findOne({ _id: 'g2', version: { $gt: 3 } })).toBeNull();
    expect(await collection.findOneAndUpdate({ _id: 'g2', version: 5 }, { $set: { version: 6 } })).toBeNull();
    expect((await collection.deleteOne({ _id: 'g2', version: 4 })).deletedCount).toBe(0);
    expect((await collection.deleteOne({ _id: 'g2', version: 3 })).deletedCount).toBe(1);
    expect(await collection.find().sort({ _id: 1 }).toArray()).toEqual([{ _id: 'g1', version: 4 }]);

    // FerretDB reports whether the filter went to its storage and SQLite's plan; MongoDB has neither.
    const plan = (await collection.find({ _id: 'g1', version: 4 }).explain()) as {
      filterPushdown?: boolean;
      queryPlanner?: unknown;
    };
    if (plan.filterPushdown !== undefined) {
      expect(plan.filterPushdown).toBe(true);
      expect(JSON.stringify(plan.queryPlanner)).toMatch(/USING INDEX/);
    }
  });

  it('finds the documents of an _id list through the index, and still applies the rest of the filter', async () => {
    // tools/ferretdb/_patches: `_id: {$in: [...]}` goes to SQLite as IN, through the _id index.
    const db = connection.db;
    if (!db) throw new Error('not connected');
    const collection = db.collection<{ _id: string; kept: boolean }>('listed');
    await collection.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: `d${i}`, kept: i % 2 === 0 })));
    const ids = (found: { _id: string }[]) => found.map((d) => d._id).sort();

    expect(ids(await collection.find({ _id: { $in: ['d1', 'd2', 'd3', 'nobody'] } }).toArray())).toEqual([
      'd1',
      'd2',
      'd3',
    ]);
    expect(ids(await collection.find({ _id: { $in: ['d1', 'd2', 'd3'] }, kept: true }).toArray())).toEqual([
      'd2',
    ]);
    expect(await collection.countDocuments({ _id: { $in: ['d4', 'd5'] }, kept: false })).toBe(1);
    expect(ids(await collection.find({ _id: { $in: ['d7'], $ne: 'd7' } }).toArray())).toEqual([]);
    const many = Array.from({ length: 150 }, (_, i) => `d${i}`);
    expect(await collection.countDocuments({ _id: { $in: many } })).toBe(50);
    expect((await collection.deleteMany({ _id: { $in: ['d8', 'd9'] }, kept: true })).deletedCount).toBe(1);

    const plan = (await collection.find({ _id: { $in: ['d1', 'd2'] } }).explain()) as {
      filterPushdown?: boolean;
      queryPlanner?: unknown;
    };
    if (plan.filterPushdown !== undefined) {
      expect(plan.filterPushdown).toBe(true);
      expect(JSON.stringify(plan.queryPlanner)).toMatch(/USING INDEX/);
    }
  });

  it('applies a version-guarded findOneAndUpdate exactly once among 20 concurrent attempts', async () => {
    const Room = connection.model(
      'Room',
      new mongoose.Schema({ version: { type: Number, required: true }, winner: String }),
    );
    let connectionsOpened = 0;
    connection.getClient().on('connectionCreated', () => (connectionsOpened += 1));

    for (let round = 0; round < 5; round++) {
      const { _id } = await Room.create({ version: 0 });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          Room.findOneAndUpdate(
            { _id, version: 0 },
            { $set: { winner: `attempt-${i}` }, $inc: { version: 1 } },
            { new: true },
          ),
        ),
      );

      const applied = results.filter((doc) => doc !== null);
      expect(applied).toHaveLength(1);
      expect(applied[0]?.version).toBe(1);
      const stored = await Room.findById(_id).lean();
      expect(stored).toMatchObject({ version: 1, winner: applied[0]?.winner });
    }
    expect(connectionsOpened).toBeGreaterThan(1);
  });
});
