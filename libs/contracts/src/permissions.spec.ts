import { contentSecurityPolicy } from './content-security-policy';
import { NATS_USERS, natsInboxPrefix, natsPermissions } from './permissions';
import {
  Broadcasts,
  Consumers,
  EventTypes,
  KvBuckets,
  QueueGroups,
  Requests,
  RetiredConsumers,
  RoomLogSubjects,
  Streams,
  TimerSubjects,
} from './subjects';

const usersThat = (list: 'publish' | 'subscribe', subject: string) =>
  NATS_USERS.filter((user) => natsPermissions[user][list].includes(subject));

describe('NATS permissions', () => {
  it('lets exactly the owning service serve each request subject, and answer it', () => {
    const owners: Record<string, string> = {
      auth: QueueGroups.auth,
      rewards: QueueGroups.rewards,
      rooms: QueueGroups.rooms,
      tournaments: QueueGroups.tournaments,
    };
    for (const [service, subjects] of Object.entries(Requests)) {
      for (const subject of Object.values(subjects)) {
        expect([subject, usersThat('subscribe', subject)]).toEqual([subject, [owners[service]]]);
      }
      expect(natsPermissions[service as 'auth'].allowResponses).toBe(true);
    }
    expect(natsPermissions.gateway.allowResponses).toBe(false);
    expect(natsPermissions['game-timer'].allowResponses).toBe(false);
  });

  it('lets the gateway call every public request, and each internal one only its one caller', () => {
    for (const subjects of Object.values(Requests)) {
      for (const subject of Object.values(subjects)) {
        const callers = usersThat('publish', subject);
        const others: Record<string, string[]> = {
          [Requests.rooms.deadline]: ['game-timer'],
          [Requests.rooms.openArena]: ['tournaments'],
          [Requests.rewards.arenaPrize]: ['tournaments'],
          // Tournaments reads an arena room it has just opened.
          [Requests.rooms.get]: ['gateway', 'tournaments'],
        };
        expect([subject, callers]).toEqual([subject, others[subject] ?? ['gateway']]);
      }
    }
  });

  it('lets exactly one service publish each event: auth the user events, rooms the game events', () => {
    for (const type of Object.values(EventTypes)) {
      const publisher = type.startsWith('user.') ? 'auth' : 'rooms';
      expect([type, usersThat('publish', type)]).toEqual([type, [publisher]]);
    }
  });

  it('lets auth alone write the token bucket, and the gateway alone read and watch it', () => {
    const stream = `KV_${KvBuckets.tokens}`;
    expect(usersThat('publish', `$KV.${KvBuckets.tokens}.>`)).toEqual(['auth']);
    expect(usersThat('publish', `$JS.API.STREAM.UPDATE.${stream}`)).toEqual(['auth']);
    expect(usersThat('publish', `$JS.API.STREAM.CREATE.${stream}`)).toEqual(['auth']);
    expect(usersThat('publish', `$JS.API.CONSUMER.CREATE.${stream}.>`)).toEqual(['gateway', 'auth']);
    expect(usersThat('publish', `$JS.API.DIRECT.GET.${stream}.>`)).toEqual(['gateway', 'auth']);
    expect(usersThat('publish', `$JS.FC.${stream}.>`)).toEqual(['gateway']);
  });

  it('gives each durable consumer to its one service', () => {
    const owner = {
      rewardsUsers: 'rewards',
      rewardsGames: 'rewards',
      rewardsHistory: 'rewards',
      timerFired: 'game-timer',
      roomsProjector: 'rooms',
      roomsUsers: 'rooms',
      tournamentsGames: 'tournaments',
    } as const;
    for (const [key, consumer] of Object.entries(Consumers)) {
      const ack = `$JS.ACK.${consumer.stream}.${consumer.durable}.>`;
      expect([consumer.durable, usersThat('publish', ack)]).toEqual([
        consumer.durable,
        [owner[key as keyof typeof owner]],
      ]);
    }
  });

  it('lets rooms delete the retired consumers and no other one', () => {
    for (const { stream, durable } of RetiredConsumers) {
      expect(usersThat('publish', `$JS.API.CONSUMER.DELETE.${stream}.${durable}`)).toEqual(['rooms']);
    }
    // Of the streams' consumers (a bucket's watchers are its own, KV_*).
    const deletes = natsPermissions.rooms.publish.filter((s) => /\.CONSUMER\.DELETE\.(?!KV_)/.test(s));
    expect(deletes).toEqual(RetiredConsumers.map((c) => `$JS.API.CONSUMER.DELETE.${c.stream}.${c.durable}`));
  });

  it('lets rooms and the game timer alone keep deadline schedules, and no one forge a fired deadline', () => {
    expect(usersThat('publish', TimerSubjects.schedule('*'))).toEqual(['rooms', 'game-timer']);
    expect(usersThat('publish', `$JS.API.STREAM.CREATE.${Streams.timers.name}`)).toEqual([
      'rooms',
      'game-timer',
    ]);
    // Rooms keeps the stream's limits; the timer only creates it if it starts first.
    expect(usersThat('publish', `$JS.API.STREAM.UPDATE.${Streams.timers.name}`)).toEqual(['rooms']);
    for (const user of NATS_USERS) {
      for (const subject of natsPermissions[user].publish) {
        // The server itself publishes a due schedule into timer.fired.<roomId>.
        expect([user, subject]).not.toEqual([user, expect.stringMatching(/^timer\.(fired|>|\*)/)]);
      }
    }
  });

  it('lets rooms alone append to, read and purge the room log', () => {
    const stream = Streams.roomLog.name;
    expect(usersThat('publish', RoomLogSubjects.room('*'))).toEqual(['rooms']);
    expect(usersThat('publish', `$JS.API.STREAM.MSG.GET.${stream}`)).toEqual(['rooms']);
    expect(usersThat('publish', `$JS.API.STREAM.PURGE.${stream}`)).toEqual(['rooms']);
    expect(usersThat('publish', `$JS.API.STREAM.CREATE.${stream}`)).toEqual(['rooms']);
  });

  it('lets rewards alone announce a changed leaderboard, and the gateway alone hear it', () => {
    expect(usersThat('publish', Broadcasts.leaderboardChanged)).toEqual(['rewards']);
    expect(usersThat('subscribe', Broadcasts.leaderboardChanged)).toEqual(['gateway']);
  });

  it('keeps each user to its own replies and out of wildcards over everything', () => {
    for (const user of NATS_USERS) {
      const { publish, subscribe } = natsPermissions[user];
      const inboxes = subscribe.filter((s) => s.startsWith('_INBOX'));
      expect([user, inboxes]).toEqual([user, [`${natsInboxPrefix(user)}.>`]]);
      for (const subject of [...publish, ...subscribe]) {
        expect([user, subject]).not.toEqual([user, expect.stringMatching(/^(>|\*|\$JS\.API\.>|_INBOX\.>)$/)]);
        expect([user, subject]).not.toEqual([user, expect.stringMatching(/^\$JS\.API\.STREAM\.DELETE/)]);
      }
    }
  });
});

describe('Content-Security-Policy', () => {
  it('allows nothing inline and nothing from elsewhere, but the extra origins given', () => {
    const policy = contentSecurityPolicy();
    expect(policy).not.toMatch(/unsafe-|https?:|\*|data:/);
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("object-src 'none'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(contentSecurityPolicy({ imgSrc: ['https://media.example'] })).toContain(
      "img-src 'self' https://media.example;",
    );
  });
});
