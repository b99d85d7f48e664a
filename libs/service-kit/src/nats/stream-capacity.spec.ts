import { StreamCapacity } from './stream-capacity';

const usage = (bytes: number, maxBytes = 1000, messages = bytes / 10) => ({ bytes, maxBytes, messages });

describe('StreamCapacity', () => {
  it('knows nothing of a stream it has not looked at, and counts it as not full', () => {
    expect(new StreamCapacity(0.95).isFull('GAMES')).toBe(false);
  });

  it('counts a stream as full from the ratio of its max_bytes on', () => {
    const capacity = new StreamCapacity(0.95);
    capacity.observe('GAMES', usage(949));
    expect(capacity.state('GAMES')).toMatchObject({ bytesRatio: 0.949, full: false });
    capacity.observe('GAMES', usage(950));
    expect(capacity.isFull('GAMES')).toBe(true);
    capacity.observe('GAMES', usage(900, -1));
    expect(capacity.state('GAMES')).toMatchObject({ bytesRatio: 0, full: false });
  });

  it('stays full after a refused publish until a later look shows room was made', () => {
    const capacity = new StreamCapacity(0.95);
    capacity.observe('GAMES', usage(500));
    capacity.markFull('GAMES');
    expect(capacity.isFull('GAMES')).toBe(true);
    // The first look after the refusal is the baseline, however empty the stream looks by ratio.
    capacity.observe('GAMES', usage(600));
    expect(capacity.isFull('GAMES')).toBe(true);
    capacity.observe('GAMES', usage(600));
    expect(capacity.isFull('GAMES')).toBe(true);
    // Messages aged out.
    capacity.observe('GAMES', usage(580));
    expect(capacity.isFull('GAMES')).toBe(false);
  });

  it('is no longer full once the limit is raised', () => {
    const capacity = new StreamCapacity(0.95);
    capacity.markFull('USERS');
    capacity.observe('USERS', usage(1000));
    capacity.observe('USERS', usage(1000, 4000));
    expect(capacity.state('USERS')).toMatchObject({ bytesRatio: 0.25, full: false });
  });
});
