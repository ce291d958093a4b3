import type { IncomingMessage } from 'node:http';
import { EdgeErrors } from '../edge.errors.ts';

/**
 * A request body read once, up to a limit: over it (by Content-Length before anything is
 * read, or while reading), 413 `payload_too_large`, and the rest is left unread. `abandoned`
 * then tells the transport to close the connection after its answer: the unread rest would
 * otherwise stand where the connection's next request should begin, and that request would
 * wait for an answer that never comes.
 */
export abstract class BoundedBody {
  abandoned = false;
  private read = false;

  constructor(private readonly declaredLength: string | null) {}

  bytes(limit: number): Promise<Buffer> {
    if (this.read) return Promise.reject(new Error('the request body is read once'));
    this.read = true;
    if (Number(this.declaredLength ?? 0) > limit) return Promise.reject(this.refuse(limit));
    return this.readUpTo(limit);
  }

  /** 413, leaving the rest of the body unread. */
  protected refuse(limit: number) {
    this.abandoned = true;
    return EdgeErrors.payloadTooLarge(limit);
  }

  protected abstract readUpTo(limit: number): Promise<Buffer>;
}

/** A Node request's body. Past the limit the stream is paused, not destroyed: the socket must still carry the 413. */
export class NodeBody extends BoundedBody {
  constructor(private readonly req: IncomingMessage) {
    super(req.headers['content-length'] ?? null);
  }

  protected readUpTo(limit: number): Promise<Buffer> {
    const req = this.req;
    return new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      let size = 0;
      const stop = () => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('close', onClose);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size <= limit) return void parts.push(chunk);
        stop();
        req.pause();
        reject(this.refuse(limit));
      };
      const onEnd = () => {
        stop();
        resolve(Buffer.concat(parts));
      };
      const onError = (err: Error) => {
        stop();
        reject(err);
      };
      // The client went away before the body ended.
      const onClose = () => {
        if (req.complete) return;
        stop();
        reject(Object.assign(new Error('the client closed the request before its body ended'), { name: 'AbortError' }));
      };
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
      req.on('close', onClose);
    });
  }
}

/** A Fetch API request's body. Past the limit the reader lets go of the stream without cancelling it. */
export class FetchBody extends BoundedBody {
  constructor(private readonly request: Request) {
    super(request.headers.get('content-length'));
  }

  protected async readUpTo(limit: number): Promise<Buffer> {
    if (!this.request.body) return Buffer.alloc(0);
    const reader = this.request.body.getReader();
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        reader.releaseLock();
        throw this.refuse(limit);
      }
      parts.push(value);
    }
    return Buffer.concat(parts);
  }
}

/** No body: a graphql-ws operation's parameters are its message. */
export class NoBody extends BoundedBody {
  constructor() {
    super(null);
  }

  protected async readUpTo(): Promise<Buffer> {
    return Buffer.alloc(0);
  }
}
