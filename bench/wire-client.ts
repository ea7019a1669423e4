/**
 * A lean HTTP/1.1 client for latency benchmarks, as wrk and autocannon are: one kept-alive TCP
 * connection, the request written as one buffer, the response framed by its Content-Length. What
 * it measures is the server's cost, not a general-purpose client's (node:http's request and
 * response objects and streams cost more than the API's own work after a search).
 */
import net from 'node:net';

export interface WireResponse {
  status: number;
  body: string;
}

const HEAD_END = Buffer.from('\r\n\r\n');

export class WireClient {
  private readonly socket: net.Socket;
  private readonly ready: Promise<void>;
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (r: WireResponse) => void; reject: (e: Error) => void } | undefined;
  /** The connection has closed (the server closed it, or `close`): a request then fails at once. */
  closed = false;
  /** The last response said `Connection: close`: the server closes the connection after it. */
  closing = false;

  /** `onData`: called as each piece of a response arrives (the benchmark's stage marks). */
  constructor(
    private readonly origin: URL,
    onData?: () => void,
  ) {
    this.socket = net.connect(Number(origin.port), origin.hostname);
    this.socket.setNoDelay(true);
    this.ready = new Promise((resolve, reject) => {
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
    this.socket.on('data', (chunk: Buffer) => {
      onData?.();
      this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
      this.deliver();
    });
    this.socket.on('error', (e) => this.fail(e));
    this.socket.on('close', () => {
      this.closed = true;
      this.fail(new Error('connection closed'));
    });
  }

  /** POSTs a JSON body; one request at a time. */
  post(path: string, json: string, headers: Record<string, string> = {}): Promise<WireResponse> {
    return this.send(`POST ${path} HTTP/1.1\r\nhost: ${this.origin.host}\r\ncontent-type: application/json\r\n`, Buffer.from(json), headers);
  }

  /** GETs `path` (its query string included); one request at a time. */
  get(path: string, headers: Record<string, string> = {}): Promise<WireResponse> {
    return this.send(`GET ${path} HTTP/1.1\r\nhost: ${this.origin.host}\r\n`, Buffer.alloc(0), headers);
  }

  private async send(start: string, body: Buffer, headers: Record<string, string>): Promise<WireResponse> {
    await this.ready;
    if (this.waiting) throw new Error('one request at a time');
    if (this.closed) throw new Error('connection closed');
    let head = `${start}content-length: ${body.length}\r\n`;
    for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
    const response = new Promise<WireResponse>((resolve, reject) => (this.waiting = { resolve, reject }));
    this.socket.write(Buffer.concat([Buffer.from(`${head}\r\n`), body]));
    return response;
  }

  close(): void {
    this.socket.destroy();
  }

  /**
   * Whether another request may go on this connection: not once it has closed, nor after a response
   * that said `Connection: close` (as a closing server answers), as any HTTP client reads it; a
   * request sent then would be cut by the close that follows.
   */
  get reusable(): boolean {
    return !this.closed && !this.closing;
  }

  private deliver(): void {
    const end = this.buffered.indexOf(HEAD_END);
    if (end < 0 || !this.waiting) return;
    const head = this.buffered.subarray(0, end).toString('latin1');
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) return this.fail(new Error('a response without Content-Length'));
    const total = end + HEAD_END.length + Number(length[1]);
    if (this.buffered.length < total) return;
    if (/\r\nconnection: *close\r?$/im.test(head)) this.closing = true;
    const status = Number(head.slice(9, 12));
    const body = this.buffered.subarray(end + HEAD_END.length, total).toString('utf8');
    this.buffered = this.buffered.subarray(total);
    const { resolve } = this.waiting;
    this.waiting = undefined;
    resolve({ status, body });
  }

  private fail(e: Error): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.reject(e);
  }
}
