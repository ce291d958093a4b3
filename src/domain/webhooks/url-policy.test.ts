import { describe, expect, it } from 'vitest';
import { checkWebhookTarget, isLocalhostName, nonPublicKind, privateTargetsAllowed, type HostResolver } from './url-policy.ts';

const noDns: HostResolver = async (host) => {
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};
const check = (url: string, resolve: HostResolver = noDns) => checkWebhookTarget(url, { allowPrivate: false, resolve });

describe('privateTargetsAllowed', () => {
  it('deny refuses both environments, sandbox only live mode, allow neither', () => {
    expect([privateTargetsAllowed('deny', false), privateTargetsAllowed('deny', true)]).toEqual([false, false]);
    expect([privateTargetsAllowed('sandbox', false), privateTargetsAllowed('sandbox', true)]).toEqual([true, false]);
    expect([privateTargetsAllowed('allow', false), privateTargetsAllowed('allow', true)]).toEqual([true, true]);
  });
});

describe('nonPublicKind', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['10.0.0.5', 'a private (RFC 1918) address'],
    ['172.16.0.1', 'a private (RFC 1918) address'],
    ['172.31.255.254', 'a private (RFC 1918) address'],
    ['192.168.1.1', 'a private (RFC 1918) address'],
    ['169.254.169.254', 'a link-local address (the cloud metadata service)'],
    ['169.254.10.20', 'a link-local address'],
    ['100.64.0.1', 'a carrier-grade NAT (100.64.0.0/10) address'],
    ['100.127.255.254', 'a carrier-grade NAT (100.64.0.0/10) address'],
    ['0.0.0.0', 'an unspecified ("this network") address'],
    ['255.255.255.255', 'the broadcast address'],
    ['224.0.0.1', 'a multicast address'],
    ['239.255.255.250', 'a multicast address'],
    ['240.0.0.1', 'a reserved address'],
    ['192.0.2.10', 'a reserved address'],
    ['198.18.0.1', 'a benchmarking address'],
    ['198.19.255.1', 'a benchmarking address'],
  ])('IPv4 %s is %s', (address, kind) => expect(nonPublicKind(address)).toBe(kind));

  it.each([
    ['::1', 'a loopback address'],
    ['::', 'an unspecified address'],
    ['fe80::1', 'a link-local address'],
    ['fc00::1', 'a unique-local (fc00::/7) address'],
    ['fd12:3456:789a::1', 'a unique-local (fc00::/7) address'],
    ['ff02::1', 'a multicast address'],
    ['2001:2::1', 'a benchmarking address'],
    ['2001:db8::1', 'a reserved address'],
    ['fec0::1', 'a site-local address'],
    ['2001::1', 'a Teredo tunnel address'],
  ])('IPv6 %s is %s', (address, kind) => expect(nonPublicKind(address)).toBe(kind));

  it.each([
    ['::ffff:127.0.0.1', 'an IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['::ffff:7f00:1', 'an IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['::ffff:a9fe:a9fe', 'an IPv4-mapped form of 169.254.169.254, a link-local address (the cloud metadata service)'],
    ['::ffff:10.0.0.5', 'an IPv4-mapped form of 10.0.0.5, a private (RFC 1918) address'],
    ['::127.0.0.1', 'an IPv4-compatible form of 127.0.0.1, a loopback address'],
    ['::7f00:1', 'an IPv4-compatible form of 127.0.0.1, a loopback address'],
    ['::ffff:0:192.168.0.1', 'an IPv4-translated form of 192.168.0.1, a private (RFC 1918) address'],
    ['64:ff9b::10.0.0.1', 'a NAT64 form of 10.0.0.1, a private (RFC 1918) address'],
    ['2002:7f00:1::1', 'a 6to4 form of 127.0.0.1, a loopback address'],
  ])('IPv6 carrying IPv4 %s is %s', (address, kind) => expect(nonPublicKind(address)).toBe(kind));

  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:2800:220:1::1', '2001:4860:4860::8888', '::ffff:93.184.216.34', '64:ff9b::93.184.216.34'])(
    'public %s is accepted',
    (address) => expect(nonPublicKind(address)).toBeNull(),
  );

  it('refuses what is not an address at all', () => {
    expect(nonPublicKind('example.com')).toBe('not an IP address');
  });
});

describe('checkWebhookTarget', () => {
  it.each([
    ['https://127.0.0.1/', '127.0.0.1 is a loopback address'],
    ['https://127.0.0.1:8443/hooks', '127.0.0.1 is a loopback address'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a link-local address (the cloud metadata service)'],
    ['https://10.0.0.5/', '10.0.0.5 is a private (RFC 1918) address'],
    ['https://100.64.1.1/', '100.64.1.1 is a carrier-grade NAT (100.64.0.0/10) address'],
    ['https://[::1]/', '::1 is a loopback address'],
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1 is an IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['https://[fd00::5]/x', 'fd00::5 is a unique-local (fc00::/7) address'],
    ['https://[fe80::1]/x', 'fe80::1 is a link-local address'],
    ['http://0.0.0.0:3000/', '0.0.0.0 is an unspecified ("this network") address'],
    ['https://localhost/hooks', 'localhost is a loopback host name'],
    ['https://LOCALHOST./hooks', 'localhost. is a loopback host name'],
    ['https://api.localhost/hooks', 'api.localhost is a loopback host name'],
  ])('refuses %s: %s', async (url, reason) => expect(await check(url)).toBe(reason));

  it('reads hosts as WHATWG URL does: decimal, hex, octal and short IPv4 forms are 127.0.0.1', async () => {
    for (const url of ['http://2130706433/', 'http://0x7f.0.0.1/', 'http://0x7f000001/', 'http://0177.0.0.1/', 'http://127.1/']) {
      expect(new URL(url).hostname).toBe('127.0.0.1');
      expect(await check(url)).toBe('127.0.0.1 is a loopback address');
    }
    expect(await check('https://[0:0:0:0:0:ffff:7f00:0001]/')).toBe('::ffff:7f00:1 is an IPv4-mapped form of 127.0.0.1, a loopback address');
  });

  it('accepts public literal addresses', async () => {
    expect(await check('https://93.184.216.34/hooks')).toBeNull();
    expect(await check('https://[2606:2800:220:1::1]/hooks')).toBeNull();
  });

  it('resolves names: refused if ANY address is not public', async () => {
    const mixed: HostResolver = async () => ['93.184.216.34', '10.1.2.3'];
    expect(await check('https://hooks.example.com/x', mixed)).toBe('hooks.example.com resolves to 10.1.2.3, a private (RFC 1918) address');
    const mapped: HostResolver = async () => ['2606:2800:220:1::1', '::ffff:169.254.169.254'];
    expect(await check('https://hooks.example.com/x', mapped)).toBe(
      'hooks.example.com resolves to ::ffff:169.254.169.254, an IPv4-mapped form of 169.254.169.254, a link-local address (the cloud metadata service)',
    );
    const loopback: HostResolver = async () => ['127.0.0.1'];
    expect(await check('https://rebind.example/x', loopback)).toBe('rebind.example resolves to 127.0.0.1, a loopback address');
  });

  it('accepts names whose addresses are all public', async () => {
    const asked: string[] = [];
    const resolve: HostResolver = async (host) => (asked.push(host), ['93.184.216.34', '2606:2800:220:1::1']);
    expect(await check('https://hooks.example.com:8443/x?y=1', resolve)).toBeNull();
    expect(asked).toEqual(['hooks.example.com']);
  });

  it('accepts a name that does not resolve, or not in time (the delivery guard checks again)', async () => {
    expect(await check('https://nowhere.example/x', noDns)).toBeNull();
    expect(await check('https://empty.example/x', async () => [])).toBeNull();
    const never: HostResolver = () => new Promise(() => {});
    expect(await checkWebhookTarget('https://slow.example/x', { allowPrivate: false, resolve: never, resolveTimeoutMs: 20 })).toBeNull();
  });

  it('with private targets allowed, checks nothing and asks no resolver', async () => {
    const resolve: HostResolver = async () => {
      throw new Error('must not be asked');
    };
    expect(await checkWebhookTarget('https://127.0.0.1/', { allowPrivate: true, resolve })).toBeNull();
    expect(await checkWebhookTarget('https://internal.example/', { allowPrivate: true, resolve })).toBeNull();
  });

  it('knows localhost names', () => {
    expect(['localhost', 'LocalHost', 'a.b.localhost', 'localhost.'].map(isLocalhostName)).toEqual([true, true, true, true]);
    expect(['localhost.example.com', 'notlocalhost', 'example.com'].map(isLocalhostName)).toEqual([false, false, false]);
  });
});
