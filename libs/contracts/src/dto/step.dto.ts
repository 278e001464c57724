import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { COMPENSATION_CHANNELS, EFFECT_KINDS, type CompensationChannel, type EffectKind, type JsonObject, type JsonValue } from '@rewind/domain';
import { ID_PATTERN } from '@rewind/engine';
import { BOOLEAN, OBJECT, TEXT, WHOLE_NUMBER } from './messages';

const MAX_TEXT = 1_000_000;

export class RecordMessageDto {
  @ApiProperty({ enum: ['user', 'agent', 'assistant'], description: '"assistant" is accepted as a synonym of "agent".' })
  @IsIn(['user', 'agent', 'assistant'])
  role!: 'user' | 'agent' | 'assistant';

  @ApiProperty({ example: 'Plan a trip to Lisbon in May.' })
  @MaxLength(MAX_TEXT)
  @IsString(TEXT)
  content!: string;

  @ApiPropertyOptional({
    description: 'The turn this message belongs to. A user message without one starts a new turn; an agent message without one answers the latest turn.',
  })
  @IsOptional()
  @Matches(ID_PATTERN, { message: 'turnId must be 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone)' })
  turnId?: string;
}

export class CompensationDto {
  @ApiProperty({ enum: COMPENSATION_CHANNELS })
  @IsIn(COMPENSATION_CHANNELS as unknown as string[])
  channel!: CompensationChannel;

  @ApiProperty({
    description: 'http: URL template; kafka: request topic; inline: handler name.',
    example: 'http://travel.local/bookings/{{output.bookingId}}/cancel',
  })
  @MinLength(1)
  @MaxLength(2048)
  @IsString(TEXT)
  target!: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Body template filled from the call input and output.' })
  @IsOptional()
  @IsObject()
  payload?: JsonObject;

  @ApiPropertyOptional({ description: 'kafka: the topic the compensator answers on (default "<target>.replies").' })
  @IsOptional()
  @MinLength(1)
  @MaxLength(249)
  @IsString(TEXT)
  replyTopic?: string;
}

export class RetryPolicyDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100, example: 5 })
  @Min(1)
  @Max(100)
  @IsInt(WHOLE_NUMBER)
  maxAttempts!: number;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: 600000, example: 200, description: 'First backoff ceiling; doubles per attempt, with full jitter.' })
  @Min(0)
  @Max(600_000)
  @IsInt(WHOLE_NUMBER)
  baseDelayMs!: number;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: 3600000, example: 10000 })
  @Min(0)
  @Max(3_600_000)
  @IsInt(WHOLE_NUMBER)
  maxDelayMs!: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 600000, example: 10000, description: 'Per attempt (http, kafka).' })
  @Min(1)
  @Max(600_000)
  @IsInt(WHOLE_NUMBER)
  timeoutMs!: number;
}

const APPROVAL_POLICY = {
  enum: ['required'],
  description: 'required: compensable and irreversible calls of this tool must be proposed (POST …/proposals) and approved by a person before they start.',
};

export class RegisterToolDto {
  @ApiPropertyOptional(APPROVAL_POLICY)
  @IsOptional()
  @IsIn(['required'], { message: 'approval must be "required" (or left out)' })
  approval?: 'required';

  @ApiProperty({
    enum: EFFECT_KINDS,
    description: 'none: read-only; reversible: an exact undo exists; compensable: a counter-action exists; irreversible: cannot be undone.',
  })
  @IsIn(EFFECT_KINDS as unknown as string[])
  kind!: EffectKind;

  @ApiPropertyOptional({ type: CompensationDto, description: 'Required for reversible and compensable tools.' })
  @IsOptional()
  // ValidateNested alone lets an array through (it validates each element: none in []).
  @IsObject(OBJECT)
  @ValidateNested()
  @Type(() => CompensationDto)
  compensation?: CompensationDto;

  @ApiPropertyOptional({ type: RetryPolicyDto })
  @IsOptional()
  @IsObject(OBJECT)
  @ValidateNested()
  @Type(() => RetryPolicyDto)
  retry?: RetryPolicyDto;
}

/** On a call, every part is optional: it completes or overrides the registered tool. */
export class EffectDto {
  @ApiPropertyOptional({ ...APPROVAL_POLICY, description: 'Ask for approval of this call (a registered policy cannot be waived by a call).' })
  @IsOptional()
  @IsIn(['required'], { message: 'approval must be "required" (or left out)' })
  approval?: 'required';

  @ApiPropertyOptional({ enum: EFFECT_KINDS, description: 'Defaults to the registered kind, else "none".' })
  @IsOptional()
  @IsIn(EFFECT_KINDS as unknown as string[])
  kind?: EffectKind;

  @ApiPropertyOptional({ type: CompensationDto })
  @IsOptional()
  @IsObject(OBJECT)
  @ValidateNested()
  @Type(() => CompensationDto)
  compensation?: CompensationDto;

  @ApiPropertyOptional({ type: RetryPolicyDto })
  @IsOptional()
  @IsObject(OBJECT)
  @ValidateNested()
  @Type(() => RetryPolicyDto)
  retry?: RetryPolicyDto;
}

export class ResolveEffectDto {
  @ApiProperty({ description: 'What was done by hand, for the audit trail.', example: 'Cancelled booking H-981 by phone with the hotel.' })
  @MinLength(1)
  @MaxLength(2000)
  @IsString(TEXT)
  note!: string;
}

export class StartToolCallDto {
  @ApiProperty({ example: 'call-1' })
  @Matches(ID_PATTERN, { message: 'toolCallId must be 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone)' })
  toolCallId!: string;

  @ApiProperty({ example: 'book_hotel' })
  @MinLength(1)
  @MaxLength(200)
  @IsString(TEXT)
  tool!: string;

  @ApiPropertyOptional({ description: 'Any JSON: the call arguments.' })
  @IsOptional()
  input?: JsonValue;

  @ApiPropertyOptional({ type: EffectDto, description: 'Declared before the call runs. Defaults to the registered tool effect, else "none".' })
  @IsOptional()
  @IsObject(OBJECT)
  @ValidateNested()
  @Type(() => EffectDto)
  effect?: EffectDto;

  @ApiPropertyOptional({ description: 'Required (true) for irreversible effects; otherwise 428.' })
  @IsOptional()
  @IsBoolean(BOOLEAN)
  confirmed?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @Matches(ID_PATTERN, { message: 'turnId must be 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone)' })
  turnId?: string;
}

/** A tool call put to a person instead of started: the body of POST …/tool-calls without `confirmed`. */
export class ProposeToolCallDto {
  @ApiProperty({ example: 'charge-1' })
  @Matches(ID_PATTERN, { message: 'toolCallId must be 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone)' })
  toolCallId!: string;

  @ApiProperty({ example: 'charge_card' })
  @MinLength(1)
  @MaxLength(200)
  @IsString(TEXT)
  tool!: string;

  @ApiPropertyOptional({ description: 'Any JSON: the call arguments, started exactly as approved.' })
  @IsOptional()
  input?: JsonValue;

  @ApiPropertyOptional({ type: EffectDto, description: 'Defaults to the registered tool effect, else "none".' })
  @IsOptional()
  @IsObject(OBJECT)
  @ValidateNested()
  @Type(() => EffectDto)
  effect?: EffectDto;

  @ApiPropertyOptional()
  @IsOptional()
  @Matches(ID_PATTERN, { message: 'turnId must be 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone)' })
  turnId?: string;
}

export class ApproveToolCallDto {
  @ApiPropertyOptional({ description: 'Why it may go ahead, for the audit trail.', example: 'Within the trip budget.' })
  @IsOptional()
  @MaxLength(2000)
  @IsString(TEXT)
  note?: string;
}

export class RejectToolCallDto {
  @ApiProperty({ description: 'Why it must not run (the agent reads it).', example: 'Too expensive: find a cheaper hotel.' })
  @MinLength(1)
  @MaxLength(2000)
  @IsString(TEXT)
  reason!: string;
}

export class SucceedToolCallDto {
  @ApiProperty({ description: 'Any JSON: what the tool returned.', example: { bookingId: 'H-981' } })
  @IsDefined({ message: 'output is required (use null for no output)' })
  output!: JsonValue;
}

export class FailToolCallDto {
  @ApiProperty({ example: 'upstream timeout' })
  @MinLength(1)
  @MaxLength(10_000)
  @IsString(TEXT)
  error!: string;

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean(BOOLEAN)
  retryable?: boolean;
}

export class ValueDto {
  @ApiProperty({ description: 'Any JSON value.', example: 'Lisbon' })
  @IsDefined({ message: 'value is required (use null to store null)' })
  value!: JsonValue;
}

export class PushTaskDto {
  @ApiPropertyOptional()
  @IsOptional()
  @Matches(ID_PATTERN, { message: 'taskId must be 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone)' })
  taskId?: string;

  @ApiProperty({ example: 'find a hotel' })
  @MinLength(1)
  @MaxLength(1000)
  @IsString(TEXT)
  title!: string;

  @ApiPropertyOptional({ description: 'Any JSON.' })
  @IsOptional()
  data?: JsonValue;
}

export class InterruptTurnDto {
  @ApiProperty({ description: 'What the user had seen of the answer when they stopped it.', example: 'Here are three hotels: 1.' })
  @MaxLength(MAX_TEXT)
  @IsString(TEXT)
  partialContent!: string;
}

export class RecordThoughtDto {
  @ApiProperty({
    description: "The agent's reasoning, as text. Never part of GET …/context unless includeThoughts=true.",
    example: 'The user wants May; Lisbon hotels fill early, so search first.',
  })
  @MaxLength(MAX_TEXT)
  @IsString(TEXT)
  content!: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: 200,
    description: 'The same reasoning as separate steps, when the agent gives them.',
    example: ['dates: May', 'search hotels first'],
  })
  @IsOptional()
  @IsArray({ message: 'steps must be an array of strings' })
  @ArrayMaxSize(200)
  @MaxLength(MAX_TEXT, { each: true })
  @IsString({ each: true, message: 'each step must be a string' })
  steps?: string[];

  @ApiPropertyOptional({ description: 'The turn the thought belongs to; by default the latest.' })
  @IsOptional()
  @Matches(ID_PATTERN, { message: 'turnId must be 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone)' })
  turnId?: string;
}

export class CreateCheckpointDto {
  @ApiProperty({ example: 'before-booking' })
  @Matches(/^[^\u0000-\u001f]{1,200}$/, { message: 'label must be 1-200 printable characters' })
  label!: string;
}
