import { clientAddressKey } from './client-address';

describe('clientAddressKey', () => {
  it('counts an IPv4 client by its address, also written IPv4-mapped', () => {
    expect(clientAddressKey('203.0.113.7', 56)).toBe('203.0.113.7');
    expect(clientAddressKey('::ffff:203.0.113.7', 56)).toBe('203.0.113.7');
    expect(clientAddressKey('203.0.113.8', 56)).not.toBe(clientAddressKey('203.0.113.7', 56));
  });

  it('counts an IPv6 client by its network: addresses it could rotate through share one key', () => {
    const key = clientAddressKey('2001:db8:1:2a::1', 56);
    expect(key).toBe('2001:db8:1::/56');
    for (const other of ['2001:db8:1:2b:ffff::9', '2001:0db8:0001:00ff::', '2001:db8:1:2a::1%eth0'])
      expect(clientAddressKey(other, 56)).toBe(key);
    expect(clientAddressKey('2001:db8:1:100::1', 56)).not.toBe(key);
    expect(clientAddressKey('2001:db8:1:2b::1', 64)).not.toBe(clientAddressKey('2001:db8:1:2a::1', 64));
    expect(clientAddressKey('2001:db8:1:2a::1', 128)).toBe('2001:db8:1:2a::1/128');
  });

  it('keeps what is not an address as it is', () => {
    expect(clientAddressKey(undefined, 56)).toBe('unknown');
    expect(clientAddressKey('', 56)).toBe('unknown');
    expect(clientAddressKey('not-an-address', 56)).toBe('not-an-address');
  });
});
