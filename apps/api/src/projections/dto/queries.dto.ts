import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { EFFECT_KINDS } from '@rewind/domain';
import { ID_PATTERN } from '@rewind/engine';

export const SESSION_STATUSES = ['active', 'rolling_back', 'needs_attention'] as const;
export const SESSION_SORTS = ['sessionId', 'createdAt', 'updatedAt'] as const;
export const CALL_STATUSES = ['started', 'succeeded', 'failed'] as const;
export const AUDIT_ORDERS = ['asc', 'desc'] as const;
export const COMPENSATION_STATUSES = ['pending', 'compensated', 'skipped', 'failed', 'resolved'] as const;

const ISO = { strict: true, strictSeparator: true };
const CURSOR = /^[A-Za-z0-9_-]{1,1000}$/;
const cursorMessage = 'cursor must be the nextCursor of a previous page, unchanged';

/** GET /v1/sessions */
export class SessionListQueryDto {
  @ApiPropertyOptional({ enum: SESSION_STATUSES, description: 'Only sessions in this status.' })
  @IsOptional()
  @IsIn(SESSION_STATUSES, { message: `status must be one of ${SESSION_STATUSES.join(', ')}` })
  status?: (typeof SESSION_STATUSES)[number];

  @ApiPropertyOptional({ description: 'Only sessions whose title contains this text (case-insensitive).', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ description: 'Only sessions with activity strictly after this instant (ISO-8601).', example: '2026-05-01T00:00:00Z' })
  @IsOptional()
  @IsISO8601(ISO, { message: 'updatedAfter must be an ISO-8601 date-time, e.g. 2026-05-01T00:00:00Z' })
  updatedAfter?: string;

  @ApiPropertyOptional({ description: 'Only sessions whose last activity is strictly before this instant (ISO-8601).' })
  @IsOptional()
  @IsISO8601(ISO, { message: 'updatedBefore must be an ISO-8601 date-time, e.g. 2026-05-01T00:00:00Z' })
  updatedBefore?: string;

  @ApiPropertyOptional({ enum: SESSION_SORTS, default: 'sessionId', description: 'sessionId: ascending; createdAt, updatedAt: newest first.' })
  @IsOptional()
  @IsIn(SESSION_SORTS, { message: `sort must be one of ${SESSION_SORTS.join(', ')}` })
  sort?: (typeof SESSION_SORTS)[number];

  @ApiPropertyOptional({ description: 'The nextCursor of the previous page (opaque).' })
  @IsOptional()
  @Matches(CURSOR, { message: cursorMessage })
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', default: 50, minimum: 1, maximum: 500 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be a whole number' })
  @Min(1)
  @Max(500)
  limit?: number;
}

/** GET /v1/audit */
export class AuditQueryDto {
  @ApiPropertyOptional({ description: 'Only the events of this session.' })
  @IsOptional()
  @Matches(ID_PATTERN, { message: 'sessionId must be 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone)' })
  sessionId?: string;

  @ApiPropertyOptional({
    description: 'Only events of this type, e.g. RollbackRequested, or of any of several, comma-separated (up to 50), e.g. ToolCallStarted,ToolCallFailed.',
  })
  @IsOptional()
  @Matches(/^[A-Za-z][A-Za-z0-9_.]{0,99}(,[A-Za-z][A-Za-z0-9_.]{0,99}){0,49}$/, {
    message: 'type must be an event type name, e.g. RollbackRequested, or several separated by commas',
  })
  type?: string;

  @ApiPropertyOptional({ description: 'Only events recorded for this actor, e.g. key:1a2b3c.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  actor?: string;

  @ApiPropertyOptional({ description: 'Events that occurred at or after this instant (ISO-8601).' })
  @IsOptional()
  @IsISO8601(ISO, { message: 'from must be an ISO-8601 date-time, e.g. 2026-05-01T00:00:00Z' })
  from?: string;

  @ApiPropertyOptional({ description: 'Events that occurred before this instant (ISO-8601).' })
  @IsOptional()
  @IsISO8601(ISO, { message: 'to must be an ISO-8601 date-time, e.g. 2026-05-02T00:00:00Z' })
  to?: string;

  @ApiPropertyOptional({ enum: AUDIT_ORDERS, default: 'asc', description: 'asc: log order; desc: newest first (the first page is the latest events).' })
  @IsOptional()
  @IsIn(AUDIT_ORDERS, { message: `order must be one of ${AUDIT_ORDERS.join(', ')}` })
  order?: (typeof AUDIT_ORDERS)[number];

  @ApiPropertyOptional({ description: 'The nextCursor of the previous page (opaque).' })
  @IsOptional()
  @Matches(CURSOR, { message: cursorMessage })
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', default: 100, minimum: 1, maximum: 1000 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be a whole number' })
  @Min(1)
  @Max(1000)
  limit?: number;
}

/** GET /v1/tool-calls */
export class ToolCallsQueryDto {
  @ApiPropertyOptional({ description: 'Only the tool calls of this session.' })
  @IsOptional()
  @Matches(ID_PATTERN, { message: 'sessionId must be 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone)' })
  sessionId?: string;

  @ApiPropertyOptional({ enum: CALL_STATUSES, description: "The call's own outcome." })
  @IsOptional()
  @IsIn(CALL_STATUSES, { message: `status must be one of ${CALL_STATUSES.join(', ')}` })
  status?: (typeof CALL_STATUSES)[number];

  @ApiPropertyOptional({ enum: EFFECT_KINDS, description: 'The effect the call declared.' })
  @IsOptional()
  @IsIn(EFFECT_KINDS, { message: `effect must be one of ${EFFECT_KINDS.join(', ')}` })
  effect?: (typeof EFFECT_KINDS)[number];

  @ApiPropertyOptional({ enum: COMPENSATION_STATUSES, description: 'What a rollback did about the effect.' })
  @IsOptional()
  @IsIn(COMPENSATION_STATUSES, { message: `compensation must be one of ${COMPENSATION_STATUSES.join(', ')}` })
  compensation?: (typeof COMPENSATION_STATUSES)[number];

  @ApiPropertyOptional({ description: 'The nextCursor of the previous page (opaque).' })
  @IsOptional()
  @Matches(CURSOR, { message: cursorMessage })
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', default: 100, minimum: 1, maximum: 500 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be a whole number' })
  @Min(1)
  @Max(500)
  limit?: number;
}
