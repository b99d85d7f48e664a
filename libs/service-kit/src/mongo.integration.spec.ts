import { mongoUrlFor, uniqueName, useTestInfra } from '@oasis198/testing';
import mongoose, { type Connection, type Model, Schema } from 'mongoose';
import { onlyDuplicateKeys } from './mongo';

// What an unordered insertMany through mongoose throws against the real database: the unit test's
// hand-made errors cannot tell how mongoose and the driver shape it.
const infra = useTestInfra();

describe('onlyDuplicateKeys against the database', () => {
  let connection: Connection;
  let records: Model<{ _id: string; n: number }>;

  beforeAll(async () => {
    connection = await mongoose
      .createConnection(mongoUrlFor(infra(), uniqueName('mongo-errors')), {
        serverSelectionTimeoutMS: 10_000,
      })
      .asPromise();
    records = connection.model<{ _id: string; n: number }>(
      'Record',
      new Schema({ _id: String, n: Number }, { versionKey: false }),
    );
    await records.init();
  });

  afterAll(async () => {
    await connection?.close();
  });

  const refusal = (work: Promise<unknown>) =>
    work.then(
      () => {
        throw new Error('expected the insert to be refused');
      },
      (error: unknown) => error,
    );

  it('is true when the documents refused were there already, and the others are written', async () => {
    await records.create({ _id: 'a', n: 1 });
    await records.create({ _id: 'c', n: 1 });
    // One refused (a single write error) and two refused (a list of them), beside new documents.
    for (const batch of [
      [{ _id: 'a' }, { _id: 'b' }],
      [{ _id: 'a' }, { _id: 'c' }, { _id: 'd' }],
    ]) {
      const error = await refusal(
        records.insertMany(
          batch.map((doc) => ({ ...doc, n: 2 })),
          { ordered: false },
        ),
      );
      expect(onlyDuplicateKeys(error)).toBe(true);
    }
    const stored = await records.find({}).sort({ _id: 1 }).lean().exec();
    expect(stored).toEqual([
      { _id: 'a', n: 1 },
      { _id: 'b', n: 2 },
      { _id: 'c', n: 1 },
      { _id: 'd', n: 2 },
    ]);
  });
});
