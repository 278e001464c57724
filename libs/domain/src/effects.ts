import type { JsonObject } from './json';

/**
 * What a tool call does to the outside world, declared before it runs so that a
 * crash during the call can still be compensated.
 */
export const EFFECT_KINDS = ['none', 'reversible', 'compensable', 'irreversible'] as const;
export type EffectKind = (typeof EFFECT_KINDS)[number];

export const COMPENSATION_CHANNELS = ['http', 'kafka', 'inline'] as const;
export type CompensationChannel = (typeof COMPENSATION_CHANNELS)[number];

/** How to undo (or counter) an effect; templates are filled from the call's input and output. */
export interface CompensationSpec {
  channel: CompensationChannel;
  /** http: URL template; kafka: request topic; inline: handler name. */
  target: string;
  /** Body template, e.g. `{ "bookingId": "{{output.bookingId}}" }`. */
  payload?: JsonObject;
}

export interface EffectDescriptor {
  kind: EffectKind;
  compensation?: CompensationSpec;
}

export const NO_EFFECT: EffectDescriptor = { kind: 'none' };

export function hasExternalEffect(effect: EffectDescriptor): boolean {
  return effect.kind !== 'none';
}
