import fc from 'fast-check';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { nodeRequestUrl } from './requests.ts';

/** What the WHATWG parser reads from `scheme://Host<target>`, as @whatwg-node/server builds it (null: no URL). */
function parsed(host: string, target: string, encrypted: boolean) {
  try {
    const u = new URL(`${encrypted ? 'https' : 'http'}://${host}${target}`);
    return { pathname: u.pathname, search: u.search, href: u.href, origin: u.origin, hostname: u.hostname };
  } catch {
    return null;
  }
}

const request = (host: string, target: string, encrypted: boolean) => ({ url: target, headers: { host }, socket: { encrypted } }) as unknown as IncomingMessage;

describe('nodeRequestUrl', () => {
  it("reads a request's URL as the WHATWG parser does, a host seen before too", () => {
    const hosts = ['example.com', 'EXAMPLE.com:8080', '127.0.0.1:3000', 'a.b.c:80', 'x:443', 'x:0443', 'x:65536', '[::1]:3000', 'bad host', '', 'ex%41mple.com', '1.2.3', '999.1.1.1', 'A-b.C.:1'];
    const targets = ['/v1/vehicles/x', '/v1/x?', '/v1/x?a=1&b=%20', '/a/../b', '/%2e/x', '/a b', '/ü', '/x?y=ü', '/', '//x', '/x\\y'];
    for (let round = 0; round < 2; round++) {
      for (const host of hosts) for (const target of targets) for (const encrypted of [false, true]) {
        expect(nodeRequestUrl(request(host, target, encrypted)), `${host} ${target}`).toEqual(parsed(host, target, encrypted));
      }
    }
    fc.assert(
      fc.property(fc.domain(), fc.option(fc.integer({ min: 0, max: 70_000 })), fc.webPath(), fc.boolean(), (domain, port, path, encrypted) => {
        const host = port === null ? domain : `${domain}:${port}`;
        const target = path.startsWith('/') ? path : `/${path}`;
        expect(nodeRequestUrl(request(host, target, encrypted))).toEqual(parsed(host, target, encrypted));
      }),
      { numRuns: 5_000 },
    );
  });
});
