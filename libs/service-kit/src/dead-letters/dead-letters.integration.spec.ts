import type { EventEnvelope, EventType } from '@oasis198/contracts';
import { mongoUrlFor, uniqueName, useTestInfra } from '@oasis198/testing';
import mongoose, { type Connection, type Model, Schema } from 'mongoose';
import type { JetStreamManager } from 'nats';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../logger';
import { Metrics } from '../metrics';
import { JetStreamService, type StreamSpec } from '../nats/jetstream.service';
import { type OutboxDocument, OutboxRelay, outboxKey, outboxOf } from '../outbox';
import { DEAD_LETTERS_COLLECTION, type DeadLetterRecord, replayDeadLetters } from './dead-letters';

// Outbox events JetStream keeps refusing, against real NATS and FerretDB: they hold up nothing
// else, become dead letters (counted across restarts), and a replay publishes them once.
const infra = useTestInfra();

describe('outbox dead letters', () => {
  const logger = createLogger('dead-letters-it', 'silent');
  let connection: Connection;
  let docs: Model<OutboxDocument>;
  let js: JetStreamService;
  let jsm: JetStreamManager;
  let stream: StreamSpec;
  let metrics: Metrics;
  const dbName = uniqueName('dead-letters');

  beforeAll(async () => {
    connection = await mongoose
      .createConnection(mongoUrlFor(infra(), dbName), {
        serverSelectionTimeoutMS: 10_000,
      })
      .asPromise();
    docs = connection.model<OutboxDocument>(
      'Doc',
      new Schema(
        {
          _id: String,
          outbox: { type: Schema.Types.Mixed, default: null },
          outboxAt: { type: Date, default: null },
          tombstone: { type: Boolean, default: false },
        },
        { collection: 'docs', versionKey: false, minimize: false },
      ),
    );
    js = new JetStreamService({ servers: [infra().natsUrl], name: 'dead-letters-it' }, logger);
    await js.connect();
    jsm = await js.nc.jetstreamManager();
  });

  afterAll(async () => {
    await js?.close();
    await connection?.dropDatabase();
    await connection?.close();
  });

  beforeEach(async () => {
    metrics = new Metrics('dead-letters-it');
    const name = uniqueName('outbox');
    // Messages over 1 KiB are refused: a stand-in for any refusal (a full stream, no stream).
    stream = { name, subjects: [`${name}.>`], maxBytes: 1024 * 1024, maxMsgSize: 1024 };
    await js.ensureStreams([stream]);
  });

  const relay = (options: { attempts?: number; afterMs?: number } = {}) =>
    new OutboxRelay(docs, js, logger, {
      service: 'it',
      minAgeMs: 0,
      metrics,
      deadLetterAttempts: options.attempts ?? 3,
      deadLetterAfterMs: options.afterMs ?? 0,
    });
  let n = 0;
  const event = (bytes: number): EventEnvelope =>
    ({
      id: `${stream.name}:${++n}`,
      type: `${stream.name}.updated` as EventType,
      occurredAt: new Date(Date.now() + n).toISOString(),
      data: { padding: 'x'.repeat(bytes) },
    }) as unknown as EventEnvelope;
  const insert = async (id: string, events: EventEnvelope[]) => {
    await docs.collection.insertOne({
      _id: id,
      outbox: outboxOf(events),
      outboxAt: new Date(Date.now() - 10_000),
      tombstone: false,
    } as never);
  };
  const stored = async () => (await jsm.streams.info(stream.name)).state.messages;
  const storedIds = async () => {
    const ids: string[] = [];
    const { state } = await jsm.streams.info(stream.name);
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
      const msg = await jsm.streams.getMessage(stream.name, { seq });
      ids.push(msg.header.get('Nats-Msg-Id'));
    }
    return ids;
  };
  const deadLetters = () => connection.collection<DeadLetterRecord>(DEAD_LETTERS_COLLECTION);

  it('dead-letters an event refused often enough over long enough, counting across restarts, and holds up nothing else', async () => {
    const big = event(4000);
    const afterBig = event(10);
    const other = event(10);
    const [a, b] = [uniqueName('a'), uniqueName('b')];
    await insert(a, [big, afterBig]);
    await insert(b, [other]);

    // Long enough that three sweeps fit in it on a loaded machine.
    const afterMs = 4000;
    await relay({ afterMs }).sweep();
    // The other document's event went out; the refused one holds up only its own document.
    expect(await storedIds()).toEqual([other.id]);
    const key = outboxKey(big.id);
    const counted = await docs.collection.findOne({ _id: a } as never);
    expect(counted?.['outboxFailures']?.[key]).toMatchObject({
      attempts: 1,
      error: 'message size exceeds maximum allowed',
    });

    // A restarted relay goes on counting where the last one stopped.
    await relay({ afterMs }).sweep();
    await relay({ afterMs }).sweep();
    expect((await docs.collection.findOne({ _id: a } as never))?.['outboxFailures']?.[key]).toMatchObject({
      attempts: 3,
    });
    expect(await deadLetters().countDocuments({ _id: big.id })).toBe(0); // 3 refusals, but not over 4 s yet

    const firstAt = new Date(counted?.['outboxFailures']?.[key]?.firstAt).getTime();
    await sleep(Math.max(0, firstAt + afterMs + 100 - Date.now()));
    await relay({ afterMs }).sweep();
    const letter = await deadLetters().findOne({ _id: big.id });
    expect(letter).toMatchObject({
      service: 'it',
      type: big.type,
      source: { collection: 'docs', id: a },
      error: 'message size exceeds maximum allowed',
      attempts: 4,
    });
    expect(JSON.parse(letter?.event ?? '{}')).toEqual(big);
    const failedFor = (letter?.lastFailedAt.getTime() ?? 0) - (letter?.firstFailedAt.getTime() ?? Infinity);
    expect(failedFor).toBeGreaterThanOrEqual(afterMs);
    // Out of the outbox; the event after it went out in the same pass.
    const doc = await docs.collection.findOne({ _id: a } as never);
    expect(Object.keys(doc?.['outbox'] ?? {})).toEqual([]);
    expect(doc?.['outboxFailures']).toEqual({});
    expect(await storedIds()).toEqual([other.id, afterBig.id]);
    expect(await metrics.registry.getSingleMetricAsString('oasis_outbox_dead_letters_total')).toContain(
      `oasis_outbox_dead_letters_total{type="${big.type}",service="dead-letters-it"} 1`,
    );
    expect(await metrics.registry.getSingleMetricAsString('oasis_outbox_dead_letters_waiting')).toContain(
      'oasis_outbox_dead_letters_waiting{service="dead-letters-it"} 1',
    );

    // Replayed once the cause is fixed: published with its own msg-id, then the record goes.
    await js.ensureStreams([{ ...stream, maxMsgSize: 64 * 1024 }], { updateLimits: true });
    const lines: string[] = [];
    expect(await replayDeadLetters(deadLetters(), js, (line) => lines.push(line))).toEqual({
      replayed: 1,
      failed: 0,
    });
    expect(await storedIds()).toEqual([other.id, afterBig.id, big.id]);
    expect(await deadLetters().countDocuments({})).toBe(0);
    expect(lines.join('\n')).toMatch(
      new RegExp(`replayed ${big.id} .*stored in stream ${stream.name} as seq 3`),
    );

    // A second replay of the same dead letter (e.g. set aside twice) stores nothing new.
    await deadLetters().insertOne(letter as DeadLetterRecord);
    expect((await replayDeadLetters(deadLetters(), js, () => undefined)).replayed).toBe(1);
    expect(await stored()).toBe(3);
    expect(await deadLetters().countDocuments({})).toBe(0);
  });

  it('keeps a dead letter that is still refused, and says so', async () => {
    const big = event(4000);
    const c = uniqueName('c');
    await insert(c, [big]);
    const once = relay({ attempts: 1 });
    await once.sweep();
    expect(await deadLetters().countDocuments({ _id: big.id })).toBe(1);
    const lines: string[] = [];
    expect(await replayDeadLetters(deadLetters(), js, (line) => lines.push(line))).toEqual({
      replayed: 0,
      failed: 1,
    });
    expect(lines).toContain(
      `kept ${big.id} (${big.type}, from docs ${c}): still refused: message size exceeds maximum allowed`,
    );
    expect(await deadLetters().countDocuments({ _id: big.id })).toBe(1);
    await deadLetters().deleteMany({});
  });

  it("is replayed by the replay-dead-letters entry point with the service's MONGO_URL and NATS_URL", async () => {
    const big = event(4000);
    await insert(uniqueName('d'), [big]);
    await relay({ attempts: 1 }).sweep();
    expect(await deadLetters().countDocuments({ _id: big.id })).toBe(1);
    await js.ensureStreams([{ ...stream, maxMsgSize: 64 * 1024 }], { updateLimits: true });
    const { stdout, code } = await run(
      process.execPath,
      ['-r', '@swc-node/register', 'libs/service-kit/src/dead-letters/replay-main.ts', 'it'],
      {
        ...process.env,
        SWC_NODE_PROJECT: 'tsconfig.base.json',
        MONGO_URL: mongoUrlFor(infra(), dbName),
        NATS_URL: infra().natsUrl,
        LOG_LEVEL: 'warn',
      },
    );
    expect({ code, stdout }).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`[it] replayed ${big.id}`),
    });
    expect(stdout).toContain('[it] done: 1 replayed, 0 kept');
    expect(await deadLetters().countDocuments({})).toBe(0);
    expect((await storedIds()).at(-1)).toBe(big.id);
  });

  it('deletes a tombstone whose last event became a dead letter', async () => {
    const big = event(4000);
    const t = uniqueName('t');
    await docs.collection.insertOne({
      _id: t,
      outbox: outboxOf([big]),
      outboxAt: new Date(Date.now() - 10_000),
      tombstone: true,
    } as never);
    const once = relay({ attempts: 1 });
    await once.sweep();
    await once.sweep();
    expect(await docs.collection.countDocuments({ _id: t } as never)).toBe(0);
    expect(await deadLetters().countDocuments({ _id: big.id })).toBe(1);
    await deadLetters().deleteMany({});
  });
});

/** Runs a command from the workspace root; its exit code and output. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      command,
      args,
      { cwd: path.resolve(__dirname, '../../../..'), env, timeout: 30_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
