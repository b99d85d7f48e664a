import { ConfigError, loadConfig } from '@oasis198/service-kit';
import { gatewayEnv } from './config';

const load = (TRUST_PROXY?: string) =>
  loadConfig(gatewayEnv, {
    NATS_URL: 'nats://127.0.0.1:4222',
    JWT_SECRET: 'gateway-config-spec-key-8f3a9c1d7e5b2a60',
    ...(TRUST_PROXY === undefined ? {} : { TRUST_PROXY }),
  });

describe('gateway configuration: TRUST_PROXY', () => {
  it('trusts the loopback proxy only by default (the local stack)', () => {
    expect(load().TRUST_PROXY).toEqual(['loopback']);
  });

  it('takes a hop count (the chart default: the ingress controller in front of the gateway)', () => {
    expect(load('1').TRUST_PROXY).toBe(1);
    expect(load(' 2 ').TRUST_PROXY).toBe(2);
  });

  it("takes the ingress controller's addresses and CIDRs", () => {
    expect(load('10.42.0.0/16, 192.0.2.7,fd00::/8 , loopback').TRUST_PROXY).toEqual([
      '10.42.0.0/16',
      '192.0.2.7',
      'fd00::/8',
      'loopback',
    ]);
  });

  it.each(['true', 'TRUE', '*', 'everyone', '10.0.0.0/33', '300.1.1.1', '', ' , '])(
    'refuses %p, naming TRUST_PROXY',
    (value) => {
      expect(() => load(value)).toThrow(ConfigError);
      expect(() => load(value)).toThrow(/TRUST_PROXY: must be a hop count/);
    },
  );
});
