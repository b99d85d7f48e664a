import type { INestApplication } from '@nestjs/common';
import { getModelToken } from '@nestjs/mongoose';
import { Consumers, Requests, type RoomView, Streams } from '@oasis198/contracts';
import { type RpcClient, STREAM_FULL_MESSAGE } from '@oasis198/service-kit';
import { expectAppError, fillStream, useTestInfra, waitFor } from '@oasis198/testing';
import type { Model } from 'mongoose';
import { connect, DiscardPolicy, type JetStreamManager, type NatsConnection } from 'nats';
import { ROOM_MODEL, type RoomRecord } from './room.schema';
import { roomsClient, roomsTestEnv, startRooms, testCaller } from './rooms.test-client';

// The rooms service when the GAMES stream is full, against real NATS and FerretDB: changes answer
// 503 and store nothing, no stored event is dropped, and play resumes once there is room.
const infra = useTestInfra();

describe('rooms service with a full GAMES stream', () => {
  let app: INestApplication;
  let rpc: RpcClient;
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    const env = roomsTestEnv(infra(), 'rooms-full', {
      LOG_LEVEL: 'silent',
      GAMES_STREAM_MAX_BYTES: String(4 * 1024 * 1024),
      GAMES_STREAM_MAX_MSG_SIZE: String(128 * 1024),
      STREAM_CHECK_MS: '200',
    });
    ({ app, rpc } = await startRooms(env, 'rooms-full-test'));
    nc = await connect({ servers: infra().natsUrl });
    jsm = await nc.jetstreamManager();
  });

  afterAll(async () => {
    await rpc?.close();
    await nc?.close();
    await app?.close();
  });

  const user = testCaller;
  const { call, create, join, move } = roomsClient(() => rpc);
  const stored = (roomId: string) =>
    app.get<Model<RoomRecord>>(getModelToken(ROOM_MODEL)).findById(roomId).lean<RoomRecord>();
  const streamState = async () => (await jsm.streams.info(Streams.games.name)).state;

  it('keeps the GAMES stream bounded with the configured limits, discarding new messages', async () => {
    expect((await jsm.streams.info(Streams.games.name)).config).toMatchObject({
      max_bytes: 4 * 1024 * 1024,
      max_msg_size: 128 * 1024,
      discard: DiscardPolicy.New,
    });
  });

  it('answers 503 to every change while the stream is full, stores none, drops nothing, and resumes when there is room', async () => {
    const [alice, bob, carol] = [user('alice'), user('bob'), user('carol')];
    const room = await create(alice);
    await join(bob, room._id);
    await move(alice, room._id, 3);
    // Projected: the projector is done with every message (its deadlines written, acked).
    await waitFor(
      async () => {
        const { num_pending, num_ack_pending } = await jsm.consumers.info(
          Consumers.roomsProjector.stream,
          Consumers.roomsProjector.durable,
        );
        return num_pending === 0 && num_ack_pending === 0;
      },
      { what: 'the projector to be done' },
    );

    // The stream is almost full (as limited by the operator), then other traffic fills it.
    const { config, full, refusal } = await fillStream(nc, Streams.games.name, 'room.filler');
    expect(refusal).toMatchObject({ api_error: { err_code: 10077 } });
    await new Promise((resolve) => setTimeout(resolve, 600)); // two looks at the stream by rooms

    const before = await stored(room._id);
    const unavailable = { code: 'UNAVAILABLE', message: STREAM_FULL_MESSAGE };
    expect(await expectAppError(move(bob, room._id, 4))).toEqual(unavailable);
    expect(await expectAppError(create(carol))).toEqual(unavailable);
    expect(await expectAppError(call(Requests.rooms.delete, { caller: alice, roomId: room._id }))).toEqual(
      unavailable,
    );
    // Nothing stored: the room as it was, no room for carol (and she is in none).
    expect(await stored(room._id)).toEqual(before);
    expect(await expectAppError(call(Requests.rooms.mine, { caller: carol }))).toMatchObject({
      code: 'NOT_FOUND',
    });
    // Nothing dropped from the stream, nothing added.
    expect(await streamState()).toMatchObject({
      messages: full.messages,
      first_seq: full.first_seq,
      last_seq: full.last_seq,
    });
    // Reads still work.
    expect(await call<RoomView>(Requests.rooms.get, { roomId: room._id })).toMatchObject({ version: 3 });

    // The operator raises the limit: play resumes at the next look.
    await jsm.streams.update(Streams.games.name, { ...config, max_bytes: 4 * 1024 * 1024 });
    const played = await waitFor(() => move(bob, room._id, 4).catch(() => undefined), {
      what: 'the move to be accepted',
      intervalMs: 100,
    });
    expect(played.version).toBe(4);
    expect(await create(carol)).toMatchObject({ createdBy: { id: carol.userId } });
  });

  it('answers 503 to every change while the room log is full, logs none, and resumes when there is room', async () => {
    const [alice, bob, carol] = [user('alice'), user('bob'), user('carol')];
    const room = await create(alice);
    await join(bob, room._id);
    const { config, refusal } = await fillStream(nc, Streams.roomLog.name, 'roomlog.filler');
    expect(refusal).toMatchObject({ api_error: { err_code: 10077 } });
    await new Promise((resolve) => setTimeout(resolve, 600)); // two looks at the stream by rooms

    const unavailable = { code: 'UNAVAILABLE', message: STREAM_FULL_MESSAGE };
    expect(await expectAppError(move(alice, room._id, 4))).toEqual(unavailable);
    expect(await expectAppError(create(carol))).toEqual(unavailable);
    expect(await call<RoomView>(Requests.rooms.get, { roomId: room._id })).toMatchObject({ version: 2 });
    expect(await expectAppError(call(Requests.rooms.mine, { caller: carol }))).toMatchObject({
      code: 'NOT_FOUND',
    });

    await jsm.streams.update(Streams.roomLog.name, { ...config });
    const played = await waitFor(() => move(alice, room._id, 4).catch(() => undefined), {
      what: 'the move to be accepted',
      intervalMs: 100,
    });
    expect(played.version).toBe(3);
  });
});
