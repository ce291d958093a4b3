/**
 * DNS as the domain sees it (a port): the records a custom domain's verification looks for.
 * A name without such records answers an empty list; a resolver that cannot answer throws
 * `DnsUnavailable`.
 */
export interface DnsResolver {
  /** TXT records at `name`, each joined from its strings. */
  txt(name: string): Promise<string[]>;
  /** CNAME targets of `name`, lower case, without the trailing dot. */
  cname(name: string): Promise<string[]>;
}

export class DnsUnavailable extends Error {
  override name = 'DnsUnavailable';
}
