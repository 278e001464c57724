import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EgressRefused, EgressRules, STRICT_EGRESS } from './egress-policy';

const strict = new EgressRules(STRICT_EGRESS);

/** 'refused' or 'allowed': what the strict policy does with an address. */
function verdict(rules: EgressRules, address: string): 'refused' | 'allowed' {
  try {
    rules.checkAddress(address, address);
    return 'allowed';
  } catch (error) {
    if (error instanceof EgressRefused) return 'refused';
    throw error;
  }
}

const hex = (octets: number[]) => `${((octets[0]! << 8) | octets[1]!).toString(16)}:${((octets[2]! << 8) | octets[3]!).toString(16)}`;

/** Every IPv6 form that stands for the IPv4 address `v4` (RFC 4291, 6052, 8215, 3056, 2765). */
function embeddings(v4: string): string[] {
  const octets = v4.split('.').map(Number);
  const h = hex(octets);
  return [
    `::ffff:${v4}`, // IPv4-mapped, dotted
    `::ffff:${h}`, // IPv4-mapped, hex
    `64:ff9b::${h}`, // NAT64, well-known prefix
    `64:ff9b::${v4}`,
    `64:ff9b:1::${h}`, // NAT64, local-use prefix (/96 within 64:ff9b:1::/48)
    `2002:${h}::`, // 6to4
    `2002:${h}:1234:5678::9`,
    `::${h}`, // IPv4-compatible
    `::${v4}`,
    `::ffff:0:${h}`, // IPv4-translated
    `::ffff:0:${v4}`,
  ];
}

describe('egress policy: IPv6 forms embedding an IPv4 address', () => {
  it('the reported forms of 127.0.0.1 are refused', () => {
    for (const address of ['64:ff9b::7f00:1', '64:ff9b:1::7f00:1', '2002:7f00:1::', '::7f00:1', '::ffff:0:7f00:1', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
      expect([address, verdict(strict, address)]).toEqual([address, 'refused']);
    }
  });

  it('any IPv4 address: each embedding is classified as the IPv4 address itself', () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        const expected = verdict(strict, v4);
        for (const address of embeddings(v4)) expect([address, verdict(strict, address)]).toEqual([address, expected]);
      }),
      { numRuns: 500 },
    );
  });

  it('an allowed IPv4 address is allowed in its embedded forms too, and other addresses in 64:ff9b:1::/48 are never public', () => {
    const rules = new EgressRules({ ...STRICT_EGRESS, allow: ['10.1.2.0/24'] });
    expect(verdict(rules, '64:ff9b::a01:203')).toBe('allowed');
    expect(verdict(rules, '::ffff:10.1.2.3')).toBe('allowed');
    expect(verdict(rules, '64:ff9b::a01:303')).toBe('refused');
    // Another layout of the local-use prefix (RFC 6052 /48: 8.8.8.8 split around the u octet): its target is not known here.
    expect(verdict(strict, '64:ff9b:1:808:8:800::')).toBe('refused');
    // Plain IPv6: public stays public, unique-local stays refused.
    expect(verdict(strict, '2606:4700:4700::1111')).toBe('allowed');
    expect(verdict(strict, 'fd00::1')).toBe('refused');
  });
});
