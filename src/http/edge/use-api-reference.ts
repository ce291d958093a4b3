import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Response } from '@whatwg-node/server';
import { projectRoot } from '../../project-root.ts';
import type { EdgePlugin } from './context.ts';

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
 */
export const answersApiReference = (method: string, pathname: string) => method === 'GET' && (pathname === '/docs' || pathname.startsWith('/docs/'));

export function useApiReference(): EdgePlugin {
  const cache = new Map<string, Uint8Array<ArrayBuffer>>();
  const asset = (name: string) => {
    let bytes = cache.get(name);
    if (!bytes) cache.set(name, (bytes = new Uint8Array(readFileSync(join(projectRoot, 'node_modules', 'swagger-ui-dist', name)))));
    return bytes;
  };
  const headers = (type: string) => ({ 'content-type': type, 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' });
  return {
    onRequest({ url, request, endResponse }) {
      if (!answersApiReference(request.method, url.pathname)) return;
      if (url.pathname === '/docs' || url.pathname === '/docs/') return endResponse(new Response(PAGE, { headers: headers('text/html; charset=utf-8') }));
      if (url.pathname === '/docs/reference.js') return endResponse(new Response(INIT, { headers: headers('text/javascript; charset=utf-8') }));
      const name = url.pathname.slice('/docs/'.length);
      if (Object.hasOwn(ASSETS, name)) return endResponse(new Response(asset(name), { headers: headers(ASSETS[name]) }));
    },
  };
}
