import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

interface Booking {
  bookingId: string;
  kind: 'flight' | 'hotel';
  details: unknown;
  status: 'booked' | 'cancelled';
}

/** A failure to answer the next `times` calls to a path with (e.g. 503 then success). */
export interface InjectedFailure {
  status: number;
  times: number;
  retryAfterSeconds?: number;
}

/**
 * A small, real HTTP "travel service": books and cancels flights and hotels. Cancels are
 * idempotent by `Idempotency-Key` (a repeated key answers the first result and does not
 * cancel twice), and count how many times each effect really happened.
 */
export class TravelService {
  readonly bookings = new Map<string, Booking>();
  /** Idempotency-Key → the answer given; a key seen twice is not applied twice. */
  readonly seenKeys = new Map<string, { status: number; body: unknown }>();
  /** How many times each cancel really took effect, by booking id. */
  readonly cancellations = new Map<string, number>();
  /** Every request, in order: `POST /hotels/H-1/cancel`. */
  readonly log: string[] = [];
  private readonly failures = new Map<string, InjectedFailure>();
  private server?: Server;
  url = '';
  /** Answer every request this much later (to widen crash windows in tests). */
  delayMs = 0;

  failNext(path: string, failure: InjectedFailure): void {
    this.failures.set(path, failure);
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = raw ? JSON.parse(raw) : {};
    const path = (req.url ?? '/').split('?')[0]!;
    this.log.push(`${req.method} ${path}`);
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
    };
    const failure = this.failures.get(path);
    if (failure && failure.times > 0) {
      failure.times--;
      send(
        failure.status,
        { error: `injected ${failure.status}` },
        failure.retryAfterSeconds !== undefined ? { 'retry-after': String(failure.retryAfterSeconds) } : {},
      );
      return;
    }
    const book = /^\/(flights|hotels)$/.exec(path);
    if (req.method === 'POST' && book) {
      const kind = book[1] === 'flights' ? 'flight' : 'hotel';
      const bookingId = `${kind === 'flight' ? 'F' : 'H'}-${randomUUID().slice(0, 8)}`;
      this.bookings.set(bookingId, { bookingId, kind, details: body, status: 'booked' });
      send(201, { bookingId, ...body });
      return;
    }
    const cancel = /^\/(flights|hotels)\/([^/]+)\/cancel$/.exec(path);
    if (req.method === 'POST' && cancel) {
      const key = req.headers['idempotency-key'];
      if (typeof key === 'string' && this.seenKeys.has(key)) {
        const first = this.seenKeys.get(key)!;
        send(first.status, first.body);
        return;
      }
      const booking = this.bookings.get(cancel[2]!);
      const answer = !booking
        ? { status: 404, body: { error: `no booking ${cancel[2]}` } }
        : { status: 200, body: { cancelled: booking.bookingId, reason: body.reason ?? null } };
      if (booking) {
        booking.status = 'cancelled';
        this.cancellations.set(booking.bookingId, (this.cancellations.get(booking.bookingId) ?? 0) + 1);
      }
      if (typeof key === 'string') this.seenKeys.set(key, answer);
      send(answer.status, answer.body);
      return;
    }
    send(404, { error: `no route ${req.method} ${path}` });
  }
}
