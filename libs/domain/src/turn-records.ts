import type { EffectDescriptor } from './effects';
import type { JsonValue } from './json';

/** A turn and a tool call as the session state holds them (apart from state.ts, so the views over sealed history can name them). */
export type TurnStatus = 'open' | 'complete' | 'interrupted';
export type MessageRole = 'user' | 'agent';

export interface Message {
  messageId: string;
  role: MessageRole;
  content: string;
  version: number;
  /** True for the visible part of an agent answer cut off by an interrupt. */
  partial: boolean;
}

export interface Turn {
  turnId: string;
  status: TurnStatus;
  startedVersion: number;
  messages: Message[];
}

export type ToolCallStatus = 'started' | 'succeeded' | 'failed';

export interface ToolCall {
  toolCallId: string;
  tool: string;
  input: JsonValue;
  effect: EffectDescriptor;
  confirmed: boolean;
  turnId: string | null;
  status: ToolCallStatus;
  output: JsonValue | null;
  error: string | null;
  retryable: boolean | null;
  attempts: number;
  startedVersion: number;
  finishedVersion: number | null;
}
