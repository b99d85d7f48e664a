import { AckPolicy, connect, nanos, StringCodec, type NatsConnection } from 'nats';
import { uniqueName, useTestInfra } from './index';

// The JetStream guarantees the services rely on, checked against the real NATS server
// startTestInfra() provides.
// At file level, so the suite's own afterAll hooks (closing clients) run before the servers stop.
const infra = useTestInfra({ mongo: false });

describe('NATS JetStream from startTestInfra()', () => {
  const codec = StringCodec();
  let nc: NatsConnection;
  let stream: string;

  beforeEach(async () => {
    nc = await connect({ servers: infra().natsUrl, name: 'testing-integration' });
    stream = uniqueName('testing-js');
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: stream, subjects: [`${stream}.>`], duplicate_window: nanos(60_000) });
  });

  afterEach(async () => {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(stream);
    await nc.close();
  });

  it('stores a message published twice with the same msg-id once', async () => {
    const js = nc.jetstream();
    const subject = `${stream}.game-over`;

    const first = await js.publish(subject, codec.encode('game 1 over'), { msgID: 'room-1:1' });
    const second = await js.publish(subject, codec.encode('game 1 over'), { msgID: 'room-1:1' });
    const other = await js.publish(subject, codec.encode('game 2 over'), { msgID: 'room-1:2' });

    expect(first.duplicate).toBe(false);
    expect(second).toMatchObject({ duplicate: true, seq: first.seq });
    expect(other.duplicate).toBe(false);
    const jsm = await nc.jetstreamManager();
    expect((await jsm.streams.info(stream)).state.messages).toBe(2);
  });

  it('redelivers a message that was received but not acked after the client reconnects', async () => {
    const jsm = await nc.jetstreamManager();
    await jsm.consumers.add(stream, {
      durable_name: 'rewards',
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(1_000),
    });
    await nc.jetstream().publish(`${stream}.game-over`, codec.encode('room-7:1'), { msgID: 'room-7:1' });

    // A worker receives the message and dies before acking it.
    const crashed = await connect({ servers: infra().natsUrl });
    const lost = await (await crashed.jetstream().consumers.get(stream, 'rewards')).next({ expires: 5_000 });
    expect(lost && codec.decode(lost.data)).toBe('room-7:1');
    expect(lost?.redelivered).toBe(false);
    await crashed.close();

    // The restarted worker gets it again once ack_wait has passed, acks it, and it stays acked.
    const restarted = await connect({ servers: infra().natsUrl });
    try {
      const consumer = await restarted.jetstream().consumers.get(stream, 'rewards');
      const again = await consumer.next({ expires: 10_000 });
      expect(again && codec.decode(again.data)).toBe('room-7:1');
      expect(again).toMatchObject({ redelivered: true, seq: lost?.seq });
      expect(again?.info.deliveryCount).toBe(2);
      expect(await again?.ackAck()).toBe(true);

      expect(await consumer.next({ expires: 2_500 })).toBeNull();
      expect((await jsm.consumers.info(stream, 'rewards')).num_ack_pending).toBe(0);
    } finally {
      await restarted.close();
    }
  });
});
