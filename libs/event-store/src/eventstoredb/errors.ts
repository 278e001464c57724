import { DeadlineExceededError, MaxAppendSizeExceededError, UnavailableError, WrongExpectedVersionError, type CurrentRevision } from '@eventstore/db-client';
import { ConcurrencyError, type ExpectedVersion } from '../event-store';

/** The server could not be reached (or stopped answering) for an operation of the store. */
export class EventStoreDbUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EventStoreDbUnavailableError';
  }
}

/** The server refused an append larger than its MaxAppendSize: nothing was written; the HTTP layer answers 413. */
export class AppendTooLargeError extends RangeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AppendTooLargeError';
  }
}

/** The connection string with the password of its `user:password@` part replaced by `***`. */
export function maskEventStoreDbUrl(url: string): string {
  return url.replace(/^([a-z+]+:\/\/[^:@/]*:)[^@/]*@/i, '$1***@');
}

/** The port's version for a server's current revision (revisions count from 0, versions from 1; no stream is 0). */
export function versionOf(revision: CurrentRevision): number {
  return revision === 'no_stream' ? 0 : Number(revision) + 1;
}

/**
 * The port's error for a client error, or the error itself: a wrong expected version becomes
 * the port's ConcurrencyError; an unreachable server an error that names EVENTSTOREDB_URL.
 */
export function toPortError(error: unknown, url: string, streamId: string, expected: ExpectedVersion): unknown {
  if (error instanceof WrongExpectedVersionError) return new ConcurrencyError(streamId, expected, versionOf(error.actualVersion));
  if (error instanceof MaxAppendSizeExceededError) {
    return new AppendTooLargeError(
      `EventStoreDB refused the append to ${streamId}: it is larger than the server's maximum append size (${error.maxAppendSize} bytes; the server's MaxAppendSize setting); nothing was written. Send fewer or smaller events at once, or raise MaxAppendSize.`,
      { cause: error },
    );
  }
  return unavailableOr(error, url);
}

/** gRPC status codes UNAVAILABLE and DEADLINE_EXCEEDED: some calls (appends) pass the raw gRPC error on. */
const UNREACHABLE_CODES = new Set([14, 4]);

/** True when the client could not reach the server (refused, timed out, connection lost). */
export function isUnreachable(error: unknown): error is Error {
  if (error instanceof UnavailableError || error instanceof DeadlineExceededError) return true;
  return error instanceof Error && UNREACHABLE_CODES.has((error as { code?: unknown }).code as number);
}

/** An EventStoreDbUnavailableError naming EVENTSTOREDB_URL when the client could not reach the server; else the error. */
export function unavailableOr(error: unknown, url: string): unknown {
  if (isUnreachable(error)) {
    return new EventStoreDbUnavailableError(
      `Cannot reach EventStoreDB at ${maskEventStoreDbUrl(url)} (${error.message}). Is the server running and reachable? Set EVENTSTOREDB_URL to point at it (e.g. esdb://127.0.0.1:2113?tls=false).`,
      { cause: error },
    );
  }
  return error;
}
