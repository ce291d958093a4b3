import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/*
 * A stand-in for an S3-compatible service on loopback, speaking S3's REST protocol for the
 * calls the storage adapter makes: PutObject, GetObject, HeadObject and DeleteObject,
 * path-style (`/bucket/key`). Every request must carry AWS Signature Version 4, which is
 * checked in full against the credentials it was started with (canonical request, string to
 * sign, signing key), as S3 checks it; refusals are S3's XML errors with their statuses.
 */

export interface S3Object {
  bytes: Buffer;
  contentType: string;
  etag: string;
}

export interface S3StandInRequest {
  method: string;
  bucket: string;
  key: string;
  authorization: string;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
/** RFC 3986 encoding, as SigV4 wants for query names and values. */
const encode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function xmlError(code: string, message: string, resource: string) {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><Resource>${resource}</Resource><RequestId>${randomBytes(8).toString('hex')}</RequestId></Error>`;
}

export async function startS3StandIn(options: { bucket: string; accessKeyId: string; secretAccessKey: string; region: string }) {
  const buckets = new Map<string, Map<string, S3Object>>([[options.bucket, new Map()]]);
  const requests: S3StandInRequest[] = [];
  const sockets = new Set<Socket>();
  /** Requests to fail with 503 SlowDown, by method, each used once (S3's own transient refusal). */
  const failures: string[] = [];

  /** Why the request's SigV4 signature is not what the secret makes, or null when it is. */
  function signatureProblem(req: IncomingMessage, url: URL, rawPath: string, body: Buffer): string | null {
    const authorization = req.headers.authorization ?? '';
    const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
    if (!match) return 'the Authorization header is not AWS Signature Version 4';
    const [, accessKeyId, date, region, signedHeaders, signature] = match;
    if (accessKeyId !== options.accessKeyId) return 'unknown access key';
    if (region !== options.region) return `the credential's region is ${region}, the bucket's ${options.region}`;
    const amzDate = String(req.headers['x-amz-date'] ?? '');
    if (!amzDate.startsWith(date)) return 'x-amz-date does not match the credential scope';
    const payloadHash = String(req.headers['x-amz-content-sha256'] ?? '');
    if (!payloadHash) return 'x-amz-content-sha256 is missing';
    if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256(body)) return 'the body does not match x-amz-content-sha256';
    const headerNames = signedHeaders.split(';');
    if (!headerNames.includes('host') || !headerNames.includes('x-amz-date')) return 'host and x-amz-date must be signed';
    const canonicalHeaders = headerNames.map((name) => `${name}:${String(req.headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
    const query = [...url.searchParams].map(([k, v]) => [encode(k), encode(v)]).sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join('&');
    const canonicalRequest = [req.method, rawPath, query, canonicalHeaders, signedHeaders, payloadHash].join('\n');
    const scope = `${date}/${region}/s3/aws4_request`;
    const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
    const signingKey = hmac(hmac(hmac(hmac(`AWS4${options.secretAccessKey}`, date), region), 's3'), 'aws4_request');
    return createHmac('sha256', signingKey).update(stringToSign).digest('hex') === signature ? null : 'the signature does not match';
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const rawPath = (req.url ?? '/').split('?')[0];
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const [bucketName, ...keyParts] = rawPath.slice(1).split('/');
    const key = keyParts.map(decodeURIComponent).join('/');
    const method = req.method ?? 'GET';
    const answer = (status: number, headers: Record<string, string> = {}, payload?: string | Buffer) => {
      res.writeHead(status, { 'x-amz-request-id': randomBytes(8).toString('hex'), ...headers });
      res.end(method === 'HEAD' ? undefined : payload);
    };
    const refuse = (status: number, code: string, message: string) => answer(status, { 'content-type': 'application/xml' }, xmlError(code, message, rawPath));

    const problem = signatureProblem(req, url, rawPath, body);
    if (problem) return refuse(403, 'SignatureDoesNotMatch', `The request signature we calculated does not match the signature you provided (${problem}).`);
    requests.push({ method, bucket: bucketName, key, authorization: String(req.headers.authorization) });
    const failing = failures.indexOf(method);
    if (failing >= 0) {
      failures.splice(failing, 1);
      return refuse(503, 'SlowDown', 'Please reduce your request rate.');
    }
    const bucket = buckets.get(bucketName);
    if (!bucket) return refuse(404, 'NoSuchBucket', 'The specified bucket does not exist');
    if (!key) return refuse(405, 'MethodNotAllowed', 'Bucket operations are not served here');

    if (method === 'PUT') {
      const declared = req.headers['content-length'];
      if (declared !== undefined && Number(declared) !== body.length) return refuse(400, 'IncompleteBody', 'You did not provide the number of bytes specified by the Content-Length HTTP header.');
      const etag = `"${createHash('md5').update(body).digest('hex')}"`;
      bucket.set(key, { bytes: body, contentType: String(req.headers['content-type'] ?? 'binary/octet-stream'), etag });
      return answer(200, { etag });
    }
    if (method === 'GET' || method === 'HEAD') {
      const object = bucket.get(key);
      if (!object) return method === 'HEAD' ? answer(404) : refuse(404, 'NoSuchKey', 'The specified key does not exist.');
      return answer(200, { 'content-type': object.contentType, 'content-length': String(object.bytes.length), etag: object.etag, 'last-modified': new Date().toUTCString() }, object.bytes);
    }
    if (method === 'DELETE') {
      bucket.delete(key);
      return answer(204);
    }
    return refuse(405, 'MethodNotAllowed', `${method} is not allowed on this resource`);
  }

  const server = createServer((req, res) => void handle(req, res));
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** The bucket's objects, by key. */
    objects: buckets.get(options.bucket)!,
    /** Answer the next request of `method` with 503 SlowDown. */
    failNext(method: string) {
      failures.push(method);
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type S3StandIn = Awaited<ReturnType<typeof startS3StandIn>>;
