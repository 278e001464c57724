import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Where compensations may go, as the deployment configures it (REWIND_EGRESS_*, `@rewind/config`'s
 * EgressSettings). A tenant writes compensation templates, so without this a rollback is a way to
 * make the server call its own network (SSRF) and record the answer where the tenant reads it.
 */
export interface EgressPolicy {
  /** CIDRs (`10.0.0.0/8`), single addresses or host names (`billing.internal`, `*.corp.example`) allowed although private. */
  allow: readonly string[];
  /** Follow 3xx answers (each hop checked again); off: a redirect is a failure. */
  followRedirects: boolean;
  /** The most of an answer's body read and recorded, in bytes. */
  maxResponseBytes: number;
  /** Record the compensator's answer body in `CompensationApplied` (off: only its status). */
  recordBodies: boolean;
  /** Topics a `kafka` compensation may publish to (`name` or `prefix*`); empty: any but Rewind's own. */
  kafkaTopics: readonly string[];
}

/** Loopback, private, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, unspecified, multicast and reserved. */
const NOT_PUBLIC: [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['224.0.0.0', 3, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

const notPublic = new BlockList();
for (const [address, prefix, type] of NOT_PUBLIC) notPublic.addSubnet(address, prefix, type);

/** Rewind's own topics: commands, events, replies. No compensation publishes there. */
export const REWIND_TOPIC_PREFIX = 'rewind.';

export class EgressRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EgressRefused';
  }
}

/** An IPv6 address's 16 bytes (null when it is not one), read from its canonical form as a URL host gives it (hex groups, no dotted quad). */
function ipv6Bytes(address: string): Buffer | null {
  if (isIP(address) !== 6) return null;
  let host: string;
  try {
    host = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const [head, tail] = host.includes('::') ? host.split('::') : [host, undefined];
  const groups = (text: string | undefined) => (text ? text.split(':').map((g) => parseInt(g, 16)) : []);
  const front = groups(head);
  const back = groups(tail);
  const all = [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
  const bytes = Buffer.alloc(16);
  all.forEach((group, i) => bytes.writeUInt16BE(group, i * 2));
  return bytes;
}

const dotted = (bytes: Buffer, at: number) => [...bytes.subarray(at, at + 4)].join('.');
const zero = (bytes: Buffer, from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);

/**
 * The IPv4 address an IPv6 address stands for, where it embeds one a host or a translator
 * delivers to (each is classified as that IPv4 address, so `64:ff9b::7f00:1` is loopback):
 * IPv4-mapped `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96`, IPv4-compatible `::/96`,
 * NAT64 `64:ff9b::/96` (RFC 6052) and the local-use `64:ff9b:1::/96` (RFC 8215), 6to4 `2002::/16`
 * (RFC 3056, the address in bits 16-47). The rest of `64:ff9b:1::/48` is a local translator's
 * prefix whose layout is not known here: 'unknown', never public.
 */
function embeddedIpv4(bytes: Buffer): string | 'unknown' | null {
  const wellKnownNat64 = bytes.readUInt32BE(0) === 0x0064ff9b && zero(bytes, 4, 12);
  const mapped = zero(bytes, 0, 10) && bytes.readUInt16BE(10) === 0xffff;
  const translated = zero(bytes, 0, 8) && bytes.readUInt16BE(8) === 0xffff && zero(bytes, 10, 12);
  const compatible = zero(bytes, 0, 12);
  if (wellKnownNat64 || mapped || translated || compatible) return dotted(bytes, 12);
  if (bytes.readUInt32BE(0) === 0x0064ff9b && bytes.readUInt16BE(4) === 0x0001) return zero(bytes, 6, 12) ? dotted(bytes, 12) : 'unknown';
  if (bytes.readUInt16BE(0) === 0x2002) return dotted(bytes, 2);
  return null;
}

/** The address to classify: an IPv6 address embedding an IPv4 one is that IPv4 address (`::ffff:127.0.0.1` is 127.0.0.1). */
function normalize(address: string): { address: string; type: 'ipv4' | 'ipv6' } | 'unknown' {
  const bytes = ipv6Bytes(address);
  if (!bytes) return { address, type: 'ipv4' };
  const embedded = embeddedIpv4(bytes);
  if (embedded === 'unknown') return 'unknown';
  return embedded ? { address: embedded, type: 'ipv4' } : { address, type: 'ipv6' };
}

/** The policy's answer for one host and the addresses it resolved to. */
export class EgressRules {
  private readonly allowedAddresses = new BlockList();
  private readonly allowedHosts: string[] = [];

  constructor(readonly policy: EgressPolicy) {
    for (const entry of policy.allow) {
      const [address, prefix] = entry.split('/');
      const type = isIP(address!);
      if (type === 0) this.allowedHosts.push(entry.toLowerCase());
      else this.allowedAddresses.addSubnet(address!, prefix ? Number(prefix) : type === 4 ? 32 : 128, type === 4 ? 'ipv4' : 'ipv6');
    }
  }

  hostAllowed(host: string): boolean {
    const name = host.toLowerCase();
    return this.allowedHosts.some((entry) => (entry.startsWith('*.') ? name.endsWith(entry.slice(1)) : name === entry));
  }

  /** Throws when `address` is loopback, private, link-local or reserved and not allowed. */
  checkAddress(host: string, rawAddress: string): void {
    const classified = normalize(rawAddress);
    const rawType = isIP(rawAddress) === 6 ? 'ipv6' : 'ipv4';
    // An allowed address is allowed in any of its forms: as written, or as the IPv4 address it embeds.
    if (this.allowedAddresses.check(rawAddress, rawType)) return;
    if (classified !== 'unknown') {
      const { address, type } = classified;
      if (!notPublic.check(address, type) || this.allowedAddresses.check(address, type)) return;
    }
    const address = classified === 'unknown' ? rawAddress : classified.address;
    const shown = host === rawAddress ? address : `${host} (${address})`;
    throw new EgressRefused(
      `${shown} is a loopback, private, link-local or reserved address (or an IPv6 address embedding one), which compensations may not reach: allow it with REWIND_EGRESS_ALLOW (a CIDR or host name) if the deployment means to`,
    );
  }

  /**
   * A `lookup` for node:http that resolves the host and checks every address before the socket
   * connects to it: the address checked is the address connected to (no DNS rebinding between).
   */
  readonly lookup = (
    hostname: string,
    options: { all?: boolean; family?: number },
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    dnsLookup(hostname, { all: true, ...(options.family ? { family: options.family } : {}) }, (error, addresses) => {
      if (error) return callback(error, []);
      try {
        if (!this.hostAllowed(hostname)) for (const a of addresses) this.checkAddress(hostname, a.address);
      } catch (refused) {
        return callback(refused as Error, []);
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };

  /** Throws unless a `kafka` compensation may publish to `topic`. */
  checkTopic(topic: string): void {
    if (topic.startsWith(REWIND_TOPIC_PREFIX)) {
      throw new EgressRefused(`topic "${topic}" is one of Rewind's own (${REWIND_TOPIC_PREFIX}*): a compensation never publishes there`);
    }
    const allowed = this.policy.kafkaTopics;
    if (allowed.length > 0 && !allowed.some((t) => (t.endsWith('*') ? topic.startsWith(t.slice(0, -1)) : topic === t))) {
      throw new EgressRefused(`topic "${topic}" is not one compensations may publish to: allow it with REWIND_EGRESS_KAFKA_TOPICS`);
    }
  }
}

/** The default: public addresses only, no redirects, answers up to 10 000 bytes recorded, any topic but Rewind's own. */
export const STRICT_EGRESS: EgressPolicy = {
  allow: [],
  followRedirects: false,
  maxResponseBytes: 10_000,
  recordBodies: true,
  kafkaTopics: [],
};
