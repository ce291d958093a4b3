import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * Where webhook endpoints may point (SSRF). A live endpoint receives the business's data from
 * inside our network, so it must be on the public internet: not this machine, not the private
 * network around it, not the cloud metadata service. Pure: the only I/O is the resolver, which
 * callers may inject.
 *
 * - `deny`: private targets refused in both environments;
 * - `sandbox` (the default): refused in live mode only, so the sandbox can reach a receiver on
 *   the developer's machine;
 * - `allow`: allowed everywhere (tests, local development).
 */
export type PrivateTargetPolicy = 'deny' | 'sandbox' | 'allow';

export const PRIVATE_TARGET_POLICIES: readonly PrivateTargetPolicy[] = ['deny', 'sandbox', 'allow'];

export function privateTargetsAllowed(policy: PrivateTargetPolicy, livemode: boolean): boolean {
  return policy === 'allow' || (policy === 'sandbox' && !livemode);
}

/** A host name's addresses (default: the system resolver, every address). */
export type HostResolver = (host: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** `localhost` and every name under it always mean this machine (RFC 6761), whatever DNS says. */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** A literal IPv4 (dotted quad, as WHATWG URL normalises every IPv4 form) or IPv6 address, brackets allowed. */
export function isIpLiteral(host: string): boolean {
  const bare = unbracket(host);
  return ipaddr.IPv4.isValidFourPartDecimal(bare) || ipaddr.IPv6.isValid(bare);
}

const IPV4_KINDS: Record<string, string | null> = {
  unicast: null,
  as112: null, // anycast DNS sinks, globally reachable
  amt: null, // multicast relays, globally reachable
  unspecified: 'an unspecified ("this network") address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT (100.64.0.0/10) address',
  private: 'a private (RFC 1918) address',
  reserved: 'a reserved address',
};

const IPV6_KINDS: Record<string, string | null> = {
  unicast: null,
  as112v6: null,
  amt: null,
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address',
  multicast: 'a multicast address',
  uniqueLocal: 'a unique-local (fc00::/7) address',
  deprecatedSiteLocal: 'a site-local address',
  discard: 'a discard-only address',
  teredo: 'a Teredo tunnel address',
  benchmarking: 'a benchmarking address',
  reserved: 'a reserved address',
};

const BENCHMARKING_V4 = ipaddr.parseCIDR('198.18.0.0/15') as [ipaddr.IPv4, number];
const METADATA_V4 = '169.254.169.254';

function kindOfIPv4(ip: ipaddr.IPv4): string | null {
  if (ip.match(BENCHMARKING_V4)) return 'a benchmarking address'; // ipaddr.js counts it as reserved
  const range = ip.range();
  if (range === 'linkLocal' && ip.toString() === METADATA_V4) return 'a link-local address (the cloud metadata service)';
  return range in IPV4_KINDS ? IPV4_KINDS[range] : 'a special-purpose address';
}

function embeddedIPv4(ip: ipaddr.IPv6, from: number): ipaddr.IPv4 {
  const [hi, lo] = [ip.parts[from], ip.parts[from + 1]];
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

/** The IPv6 forms that carry an IPv4 address: classified by the address they carry. */
function viaIPv4(form: string, v4: ipaddr.IPv4): string | null {
  const kind = kindOfIPv4(v4);
  return kind ? `${form} form of ${v4.toString()}, ${kind}` : null;
}

function kindOfIPv6(ip: ipaddr.IPv6): string | null {
  const range = ip.range();
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
      return viaIPv4('an IPv4-mapped', ip.toIPv4Address());
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return viaIPv4('an IPv4-translated', embeddedIPv4(ip, 6));
    case 'rfc6052': // 64:ff9b::a.b.c.d (NAT64, also what DNS64 synthesises); 64:ff9b:1::/48 is local use
      return ip.parts[2] === 0 ? viaIPv4('a NAT64', embeddedIPv4(ip, 6)) : 'a local-use NAT64 address';
    case '6to4': // 2002:AABB:CCDD::/48 routes through the IPv4 gateway AA.BB.CC.DD
      return viaIPv4('a 6to4', embeddedIPv4(ip, 1));
    case 'unicast':
      // ::a.b.c.d, the deprecated IPv4-compatible form, falls in no range of ipaddr.js.
      if (ip.parts.slice(0, 6).every((p) => p === 0)) return viaIPv4('an IPv4-compatible', embeddedIPv4(ip, 6)) ?? 'a deprecated IPv4-compatible address';
      return null;
    default:
      return range in IPV6_KINDS ? IPV6_KINDS[range] : 'a special-purpose address';
  }
}

/**
 * Why an address is not on the public internet, e.g. "a loopback address", or null when it
 * is public. Whatever cannot be parsed as an address is not public.
 */
export function nonPublicKind(address: string): string | null {
  const bare = unbracket(address);
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return kindOfIPv4(ipaddr.IPv4.parse(bare));
  if (ipaddr.IPv6.isValid(bare)) return kindOfIPv6(parseIPv6(bare));
  return 'not an IP address';
}

/** Through WHATWG URL first: ipaddr.js reads `::a.b.c.d` (IPv4-compatible) as `::ffff:a.b.c.d`. */
function parseIPv6(bare: string): ipaddr.IPv6 {
  let canonical = bare;
  try {
    canonical = unbracket(new URL(`http://[${bare}]/`).hostname);
  } catch {
    // a zone id (fe80::1%eth0), which URLs do not take
  }
  return ipaddr.IPv6.parse(canonical);
}

/** "127.0.0.1 is a loopback address", or null for a public address. */
export function refusedAddress(address: string): string | null {
  const kind = nonPublicKind(address);
  return kind ? `${unbracket(address)} is ${kind}` : null;
}

/** "localhost resolves to 127.0.0.1, a loopback address", or null when every address is public. */
export function refusedResolution(host: string, addresses: readonly string[]): string | null {
  for (const address of addresses) {
    const kind = nonPublicKind(address);
    if (kind) return `${host} resolves to ${address}, ${kind}`;
  }
  return null;
}

/**
 * Why a webhook URL is refused, or null. Hosts are read as WHATWG URL reads them (it already
 * turns `0x7f.0.0.1` and `2130706433` into `127.0.0.1`). A literal address is classified; a
 * name is resolved and refused if ANY of its addresses is not public. A name that does not
 * resolve (or not in time) is accepted: DNS answers change anyway, and the delivery worker
 * checks the address it connects to (src/webhooks/guarded-dispatcher.ts).
 */
export async function checkWebhookTarget(
  url: string,
  options: { allowPrivate: boolean; resolve?: HostResolver; resolveTimeoutMs?: number },
): Promise<string | null> {
  if (options.allowPrivate) return null;
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return `${url} is not a valid URL`;
  }
  if (isIpLiteral(host)) return refusedAddress(host);
  if (isLocalhostName(host)) return `${host} is a loopback host name`;
  const addresses = await resolveQuietly(host, options.resolve ?? systemResolver, options.resolveTimeoutMs ?? 5_000);
  return refusedResolution(host, addresses);
}

/** The addresses of a name; none when it does not resolve or the resolver does not answer in time. */
async function resolveQuietly(host: string, resolve: HostResolver, timeoutMs: number): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string[]>((done) => {
    timer = setTimeout(() => done([]), timeoutMs);
    timer.unref?.();
  });
  try {
    return await Promise.race([resolve(host).catch(() => []), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
