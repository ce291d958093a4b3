import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../../project-root.ts';
import type { EdgeStep } from '../runner.ts';

/** Swagger UI's own files, served from the installed package (no CDN: the page works offline). */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Rental API reference</title>
    <link rel="icon" href="/docs/favicon-32x32.png" />
    <link rel="stylesheet" href="/docs/swagger-ui.css" />
  </head>
  <body>
    <div id="reference"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/swagger-ui-standalone-preset.js"></script>
    <script src="/docs/reference.js"></script>
  </body>
</html>
`;

// "Try it out" sends the key typed into Authorize with each call; it stays in the page (never persisted).
const INIT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
  persistAuthorization: false,
  validatorUrl: null,
});
`;

/**
 * GET /docs: the API reference, rendered in the browser from GET /v1/openapi.json by Swagger
 * UI, every file of it served from here. No key is needed to read it; "Try it out" takes one.
 * swagger-ui-dist is pinned to 5.32.15: from 5.33.0 on, a document of more than 191 operations
 * renders only the first few of them (test/developer-pages.test.ts counts every one).
 */
export function apiReferenceStep(): EdgeStep {
  const cache = new Map<string, Uint8Array<ArrayBuffer>>();
  const asset = (name: string) => {
    let bytes = cache.get(name);
    if (!bytes) cache.set(name, (bytes = new Uint8Array(readFileSync(join(projectRoot, 'node_modules', 'swagger-ui-dist', name)))));
    return bytes;
  };
  const answer = (type: string, body: string | Uint8Array<ArrayBuffer>) => ({
    status: 200,
    headers: { 'content-type': type, 'content-length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength), 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' },
    body,
  });
  return {
    name: 'api-reference',
    run(ctx) {
      const { method, pathname } = ctx.request;
      if (method !== 'GET' || (pathname !== '/docs' && !pathname.startsWith('/docs/'))) return;
      ctx.template = '/docs';
      if (pathname === '/docs' || pathname === '/docs/') ctx.answer = answer('text/html; charset=utf-8', PAGE);
      else if (pathname === '/docs/reference.js') ctx.answer = answer('text/javascript; charset=utf-8', INIT);
      else {
        const name = pathname.slice('/docs/'.length);
        if (Object.hasOwn(ASSETS, name)) ctx.answer = answer(ASSETS[name], asset(name));
      }
    },
  };
}
