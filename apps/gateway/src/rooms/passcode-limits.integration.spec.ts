import { ROOM_MESSAGES } from '@oasis198/contracts';
import { useGameStack } from '../testing/game-stack';
import { expectRateLimited } from '../testing/rate-limited';

/**
 * DECISIONS "Fair play": wrong passcodes per player and room, counted by the rooms service (with
 * its default, 5 in 10 minutes) before it judges them; the 429 crosses NATS with its Retry-After.
 */
describe('wrong passcodes', () => {
  const stack = useGameStack();

  it('answers 429 with Retry-After to a 6th passcode attempt of a player on a room, the right one included', async () => {
    const s = stack();
    const [alice, bob, carol, dave] = await Promise.all([
      s.register('a'),
      s.register('b'),
      s.register('c'),
      s.register('d'),
    ]);
    const room = (await s.createRoom(alice, { passCode: '4321' })).body;
    for (let i = 0; i < 5; i++) {
      expect(await s.join(bob, room._id, `${1000 + i}`)).toMatchObject({
        status: 403,
        body: { message: ROOM_MESSAGES.wrongPasscode },
      });
    }
    // Judged no more until the window ends: the answer crossed NATS from the rooms service.
    expectRateLimited(await s.join(bob, room._id, '4321'), 600);
    expectRateLimited(await s.join(bob, room._id, '9999'), 600);
    expect((await s.getRoom(room._id)).body.players).toHaveLength(1);

    // Per player and room: another player is judged, and bob may still join another room.
    expect((await s.join(carol, room._id, '0000')).status).toBe(403);
    const other = (await s.createRoom(dave, { passCode: '77' })).body;
    expect((await s.join(bob, other._id, '77')).status).toBe(200);
  });

  it('answers 429 to every join of a room after 20 wrong passcodes on it from all players, the right one included', async () => {
    const s = stack();
    const owner = await s.register('o');
    const guessers = await Promise.all(Array.from({ length: 6 }, () => s.register('x')));
    const friend = await s.register('f');
    const room = (await s.createRoom(owner, { passCode: '8642' })).body;
    const statuses: number[] = [];
    for (const [n, guesser] of guessers.entries()) {
      for (let i = 0; i < 5; i++) statuses.push((await s.join(guesser, room._id, `${n}${i}`)).status);
    }
    // 6 accounts x 5 guesses: none reaches its own limit, the room's stops them at 20.
    expect(statuses.filter((status) => status === 403)).toHaveLength(20);
    expect(statuses.slice(20)).toEqual(Array.from({ length: 10 }, () => 429));
    expectRateLimited(await s.join(friend, room._id, '8642'), 600);
    expect((await s.getRoom(room._id)).body.players).toHaveLength(1);
  });

  it('does not count a right passcode', async () => {
    const s = stack();
    const [erin, frank, gina] = await Promise.all([s.register('e'), s.register('f'), s.register('g')]);
    const room = (await s.createRoom(erin, { passCode: '5555' })).body;
    for (let i = 0; i < 4; i++) expect((await s.join(frank, room._id, '1')).status).toBe(403);
    expect((await s.join(gina, room._id, '5555')).status).toBe(200);
    // The room is full now: frank's right passcode is refused as such, and never counted.
    for (let i = 0; i < 3; i++) {
      expect(await s.join(frank, room._id, '5555')).toMatchObject({
        status: 409,
        body: { message: ROOM_MESSAGES.full },
      });
    }
  });
});
