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
  /** kafka: where the compensator answers (default `<target>.replies`). */
  replyTopic?: string;
}

/** Exponential backoff with full jitter (seed 004), per tool. */
export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Per attempt, for http and kafka channels. */
  timeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 10_000, timeoutMs: 10_000 };

export interface EffectDescriptor {
  kind: EffectKind;
  compensation?: CompensationSpec;
  retry?: RetryPolicy;
  /**
   * A tool's policy: "required" makes its compensable and irreversible calls wait for a
   * person's approval (propose, then approve; a call started without one is refused).
   */
  approval?: 'required';
}

/** True when a call with this effect may only start once a proposal of it was approved. */
export function needsApproval(effect: EffectDescriptor): boolean {
  return effect.approval === 'required' && (effect.kind === 'compensable' || effect.kind === 'irreversible');
}

export const NO_EFFECT: EffectDescriptor = { kind: 'none' };

export function hasExternalEffect(effect: EffectDescriptor): boolean {
  return effect.kind !== 'none';
}

/** A call's declared effect completes (and overrides) the tool's registered one. */
export function mergeEffect(registered: EffectDescriptor | undefined, declared: Partial<EffectDescriptor> | undefined): EffectDescriptor {
  const kind = declared?.kind ?? registered?.kind ?? 'none';
  const compensation = declared?.compensation ?? registered?.compensation;
  const retry = declared?.retry ?? registered?.retry ?? (kind === 'reversible' || kind === 'compensable' ? DEFAULT_RETRY_POLICY : undefined);
  // The registered policy holds whatever the call declares: a call can ask for approval, never waive it.
  const approval = registered?.approval ?? declared?.approval;
  return { kind, ...(compensation ? { compensation } : {}), ...(retry ? { retry } : {}), ...(approval ? { approval } : {}) };
}
