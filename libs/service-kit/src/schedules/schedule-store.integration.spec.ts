import { Streams, TimerSubjects } from '@oasis198/contracts';
import { uniqueName, useTestInfra } from '@oasis198/testing';
import { connect, type JetStreamManager, type NatsConnection } from 'nats';
import { roomView, startedGame } from '@oasis198/testing';
import { scheduleOf, type RoomSchedule } from './schedule';
import { ensureTimerStream, ScheduleStore, VERSION_HEADER } from './schedule-store';

// The version guard of room schedules against a real NATS, with stores that stand for replicas:
// each remembers what it last wrote, and only the server's last sequence per subject decides.
// At file level, so the suite's afterAll (draining its connection) runs before NATS stops.
const infra = useTestInfra({ mongo: false });

describe('ScheduleStore', () => {
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const replica = () => new ScheduleStore(nc, jsm, 500);

  beforeAll(async () => {
    nc = await connect({ servers: infra().natsUrl });
    jsm = await nc.jetstreamManager();
    await ensureTimerStream(jsm);
  });

  afterAll(async () => {
    await nc?.drain();
  });

  /** A running room's schedule at `version`, due in a minute (it does not fire during the test). */
  const scheduleAt = (roomId: string, version: number): RoomSchedule =>
    scheduleOf(roomView(startedGame(Date.now() + 60_000), { _id: roomId, version }));
  const storedVersion = async (roomId: string) => {
    const msg = await jsm.streams.getMessage(Streams.timers.name, {
      last_by_subj: TimerSubjects.schedule(roomId),
    });
    return Number(msg.header.get(VERSION_HEADER));
  };

  it('keeps the newest version whichever replica writes it, and in whatever order', async () => {
    const [a, b] = [replica(), replica()];
    const roomId = uniqueName('room');
    expect(await a.write(scheduleAt(roomId, 2))).toBe('scheduled');
    expect(await b.write(scheduleAt(roomId, 3))).toBe('scheduled');
    // a last wrote version 2: its write of version 4 loses the race on the subject, reads, and wins.
    expect(await a.write(scheduleAt(roomId, 4))).toBe('scheduled');
    expect(await storedVersion(roomId)).toBe(4);
    // b last wrote version 3 and a fresh replica nothing: neither brings back an older snapshot.
    expect(await b.write(scheduleAt(roomId, 3))).toBe('older');
    expect(await replica().write(scheduleAt(roomId, 3))).toBe('older');
    expect(await replica().write(scheduleAt(roomId, 4))).toBe('older');
    expect(await storedVersion(roomId)).toBe(4);
  });

  it("writes a room's first schedule without reading its subject, and a repeat of it changes nothing", async () => {
    const roomId = uniqueName('room');
    const gets: string[] = [];
    const counting = {
      streams: {
        getMessage: (...args: Parameters<JetStreamManager['streams']['getMessage']>) => {
          gets.push(roomId);
          return jsm.streams.getMessage(...args);
        },
      },
    } as unknown as JetStreamManager;
    const first = new ScheduleStore(nc, counting, 500);
    expect(await first.write(scheduleAt(roomId, 1), { first: true })).toBe('scheduled');
    expect(gets).toEqual([]);
    // Its redelivery on another replica: refused on the subject, then read, and left as it is.
    expect(await new ScheduleStore(nc, counting, 500).write(scheduleAt(roomId, 1), { first: true })).toBe(
      'older',
    );
    expect(gets).toEqual([roomId]);
    expect(await storedVersion(roomId)).toBe(1);
  });

  it('keeps a cancellation against older snapshots', async () => {
    const roomId = uniqueName('room');
    expect(await replica().write({ roomId, version: 5, deadlines: [] })).toBe('cancelled');
    expect(await replica().write(scheduleAt(roomId, 4))).toBe('older');
    expect(await storedVersion(roomId)).toBe(5);
  });

  it('writes the rest of a fired schedule only on an empty subject', async () => {
    const roomId = uniqueName('room');
    const rest = scheduleAt(roomId, 2);
    expect(await replica().writeRest(rest)).toBe(true);
    // Anything on the subject is newer than what fired: the rest never displaces it.
    expect(await replica().writeRest({ ...rest, version: 1 })).toBe(false);
    expect(await storedVersion(roomId)).toBe(2);
  });
});
