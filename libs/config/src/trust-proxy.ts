import { isIP } from 'node:net';
import type { EnvReader } from './env-reader';

/**
 * REWIND_TRUST_PROXY, given to Fastify's `trustProxy`: whose X-Forwarded-For decides a
 * request's client address (failed-auth throttling, logs). Off by default: a client can write
 * that header itself, so it is believed only when the deployment says a proxy sets it.
 */
export type TrustProxy = false | number | string[];

function validProxyEntry(entry: string): boolean {
  const [address, prefix, extra] = entry.split('/');
  if (extra !== undefined) return false;
  const type = isIP(address!);
  if (type === 0) return prefix === undefined && ['loopback', 'linklocal', 'uniquelocal'].includes(entry);
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (type === 4 ? 32 : 128));
}

/** `false` (default), a number of proxy hops (1: the nearest proxy only), or addresses/CIDRs of the proxies. */
export function loadTrustProxy(read: EnvReader, refuse: (message: string) => Error): TrustProxy {
  const raw = read.raw('REWIND_TRUST_PROXY')?.trim();
  if (raw === undefined || /^(false|0|no|off)$/i.test(raw)) return false;
  if (/^(true|yes|on)$/i.test(raw)) {
    throw refuse(
      'REWIND_TRUST_PROXY="true" would believe any client\'s X-Forwarded-For (a key guesser could pick its own address): name the proxies instead, by address or CIDR (10.0.0.5, 10.0.0.0/8, loopback), or give the number of proxy hops in front of the API (1).',
    );
  }
  if (/^\d+$/.test(raw)) return read.integer('REWIND_TRUST_PROXY', 0, 1, 100);
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  const bad = entries.find((entry) => !validProxyEntry(entry));
  if (bad !== undefined) {
    throw refuse(
      `REWIND_TRUST_PROXY entry "${bad}" is not valid: give the proxies' addresses or CIDRs (10.0.0.5, 10.0.0.0/8, loopback, linklocal, uniquelocal), comma-separated, or the number of proxy hops (1).`,
    );
  }
  return entries;
}
