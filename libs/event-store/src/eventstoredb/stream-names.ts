/**
 * How the port's streams and Rewind's own records are named on the server. Everything a store
 * writes starts with its namespace, so several Rewind deployments (or test runs) can share one
 * server; only `<namespace>/…` streams are the event log that `readAll` returns.
 *
 * - `<ns>/<streamId>`: a port stream (a session, a tool, …): its events, one stream per session;
 * - `<ns>-snapshots/<streamId>`: the snapshots of that stream, newest last;
 * - `<ns>-segment/<streamId>/<id>`: one snapshot segment (written once, never changed);
 * - `<ns>-idempotency/<scope>/<sha256 of the key>`: the claim and the outcome of one Idempotency-Key;
 * - `<ns>-streams`: the catalogue of port streams (what `listStreams` pages through);
 * - `<ns>-origin`: one event written when the namespace is first opened; the log starts after it.
 */
export const NAMESPACE = /^[a-z][a-z0-9_-]{0,62}$/;

export class StreamNames {
  private readonly logPrefix: string;

  constructor(readonly namespace: string) {
    if (!NAMESPACE.test(namespace)) {
      throw new Error(`Invalid EventStoreDB namespace "${namespace}": use lower-case letters, digits, _ and -, starting with a letter.`);
    }
    this.logPrefix = `${namespace}/`;
  }

  log(streamId: string): string {
    return this.logPrefix + streamId;
  }

  /** The port's stream id of a server stream of the log, or null for any other stream. */
  portStreamId(serverStream: string): string | null {
    return serverStream.startsWith(this.logPrefix) ? serverStream.slice(this.logPrefix.length) : null;
  }

  snapshots(streamId: string): string {
    return `${this.namespace}-snapshots/${streamId}`;
  }

  segment(streamId: string, id: string): string {
    return `${this.namespace}-segment/${streamId}/${id}`;
  }

  idempotency(scope: string, storedKey: string): string {
    return `${this.namespace}-idempotency/${scope}/${storedKey}`;
  }

  get catalogue(): string {
    return `${this.namespace}-streams`;
  }

  get origin(): string {
    return `${this.namespace}-origin`;
  }
}
