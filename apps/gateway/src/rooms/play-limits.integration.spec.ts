import { useGameStack } from '../testing/game-stack';
import { expectRateLimited } from '../testing/rate-limited';

const MISSING_ROOM = '000000000000000000000000';

/** DECISIONS "Fair play": writes per user, counted before they are forwarded. */
describe('limits on room and reward writes per user', () => {
  // Low on purpose (the DECISIONS defaults are 10, 20, 10 and 10).
  const stack = useGameStack({
    ROOM_CREATES_PER_MINUTE: '3',
    ROOM_LEAVES_PER_MINUTE: '3',
    ROOM_EDITS_PER_SECOND: '3',
    REWARD_WRITES_PER_MINUTE: '3',
  });

  it('allows ROOM_CREATES_PER_MINUTE room creations per user, refused ones included', async () => {
    const s = stack();
    const [henry, ivan] = await Promise.all([s.register('h'), s.register('i')]);
    expect((await s.createRoom(henry)).status).toBe(201);
    expect((await s.createRoom(henry)).status).toBe(409); // already in a room: still an attempt
    expect((await s.createRoom(henry)).status).toBe(409);
    expectRateLimited(await s.createRoom(henry), 60);
    expect((await s.createRoom(ivan)).status).toBe(201);
  });

  it('counts leaves and deletes together per user, apart from other edits', async () => {
    const s = stack();
    const jack = await s.register('j');
    const remove = () => s.call('DELETE', `/api/rooms/${MISSING_ROOM}/delete`, { token: jack.token });
    expect((await remove()).status).toBe(404);
    expect((await s.leave(jack, MISSING_ROOM)).status).toBe(404);
    expect((await remove()).status).toBe(404);
    expectRateLimited(await s.leave(jack, MISSING_ROOM), 60);
    expectRateLimited(await remove(), 60);
    // A join is a room edit, limited on its own.
    expect((await s.join(jack, MISSING_ROOM)).status).toBe(404);
  });

  it('allows ROOM_EDITS_PER_SECOND joins, moves and readies per user in a second', async () => {
    const s = stack();
    const kate = await s.register('k');
    const results = await Promise.all(Array.from({ length: 5 }, () => s.join(kate, MISSING_ROOM)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([404, 404, 404, 429, 429]);
    for (const res of results.filter((r) => r.status === 429)) expectRateLimited(res, 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await s.move(kate, MISSING_ROOM, 5)).status).toBe(404);
  });

  it('allows REWARD_WRITES_PER_MINUTE reward writes per user', async () => {
    const s = stack();
    const lisa = await s.register('l');
    await s.rewardOf(lisa.id);
    const create = () =>
      s.call('POST', '/api/rewards/', {
        token: lisa.token,
        body: { playerId: lisa.id, playerName: lisa.name },
      });
    expect((await create()).status).toBe(201);
    expect(
      (
        await s.call('PATCH', `/api/rewards/${lisa.id}/edit`, {
          token: lisa.token,
          body: { playerName: lisa.name },
        })
      ).status,
    ).toBe(200);
    expect((await s.call('DELETE', `/api/rewards/${lisa.id}/delete`, { token: lisa.token })).status).toBe(
      200,
    );
    expectRateLimited(await create(), 60);
    // Reads are not limited.
    expect((await s.call('GET', `/api/rewards/${lisa.id}`)).status).toBe(404);
  });

  it('documents the 429 and its Retry-After on every route that can answer it', async () => {
    const res = await stack().call<{
      paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>;
    }>('GET', '/api/docs/openapi.json');
    expect(res.status).toBe(200);
    const limited: Array<[string, string]> = [
      ['/api/users/login', 'post'],
      ['/api/users', 'post'],
      ['/api/rooms', 'post'],
      ['/api/rooms/{id}/edit', 'patch'],
      ['/api/rooms/{id}/delete', 'delete'],
      ['/api/rooms/stream', 'get'],
      ['/api/rooms/{id}/stream', 'get'],
      ['/api/rewards', 'post'],
      ['/api/rewards/{id}/edit', 'patch'],
      ['/api/rewards/{id}/delete', 'delete'],
    ];
    const documented = limited.map(([path, method]) => [
      path,
      method,
      Object.keys(res.body.paths[path]?.[method]?.responses['429']?.headers ?? {}),
    ]);
    expect(documented).toEqual(limited.map(([path, method]) => [path, method, ['Retry-After']]));
  });
});
