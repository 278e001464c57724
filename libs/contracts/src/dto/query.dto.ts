import { ApiPropertyOptional, ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { WholeNumberQuery } from './query-number';
import { ID_PATTERN } from '@rewind/engine';

/** `turns=last:N`: N from 1 to 1 000 000, digits only. */
export const LAST_TURNS = /^last:([1-9]\d{0,5}|1000000)$/;

/** N of a validated `turns=last:N`. */
export function lastTurnsOf(turns: string): number {
  return Number(turns.slice('last:'.length));
}

export class StateQueryDto {
  @ApiPropertyOptional({ type: 'integer', description: 'Any version of the stream, on any branch.', minimum: 1 })
  @IsOptional()
  @WholeNumberQuery('at')
  at?: number;
}

/** `GET /v1/sessions/:id/state`: any version, and optionally a window of the conversation. */
export class SessionStateQueryDto extends StateQueryDto {
  @ApiPropertyOptional({
    description:
      'A window of the conversation: only the last N turns (N from 1 to 1000000) and the tool calls started since the first of them; `window` says how many there are in all. Everything else is whole, so the answer keeps its size however long the session grows. Without `at`, the window is of the head.',
    pattern: LAST_TURNS.source,
    example: 'last:20',
  })
  @IsOptional()
  @Matches(LAST_TURNS, { message: 'turns must be last:N with N a whole number from 1 to 1000000, e.g. turns=last:20' })
  turns?: string;
}

export class TimelineQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    description: 'Page the nodes: only those with versions from here (with `limit`). Paged answers also carry `parents`, the whole DAG in one array.',
    minimum: 1,
  })
  @IsOptional()
  @WholeNumberQuery('from')
  from?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'How many versions the page spans; without `from`, the newest ones.', minimum: 1, maximum: 5000 })
  @IsOptional()
  @WholeNumberQuery('limit', { max: 5000 })
  limit?: number;
}

export class EventsQueryDto {
  @ApiPropertyOptional({ type: 'integer', default: 1, minimum: 1 })
  @IsOptional()
  @WholeNumberQuery('from')
  from?: number;

  @ApiPropertyOptional({ type: 'integer', default: 100, minimum: 1, maximum: 1000 })
  @IsOptional()
  @WholeNumberQuery('limit', { max: 1000 })
  limit?: number;
}

export class DiffQueryDto {
  @ApiProperty({ type: 'integer', minimum: 1 })
  @WholeNumberQuery('from')
  from!: number;

  @ApiProperty({ type: 'integer', minimum: 1 })
  @WholeNumberQuery('to')
  to!: number;
}

export class ContextQueryDto {
  @ApiPropertyOptional({ type: 'integer', description: 'Keep only the newest N turns.', minimum: 1 })
  @IsOptional()
  @WholeNumberQuery('maxTurns')
  maxTurns?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'Drop the oldest items until the text fits in this many characters.', minimum: 1 })
  @IsOptional()
  @WholeNumberQuery('maxChars')
  maxChars?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'Build the context as it was at this version.', minimum: 1 })
  @IsOptional()
  @WholeNumberQuery('at')
  at?: number;

  // A boolean in the document (clients send `true` or `false`); the query string carries it as text.
  @ApiPropertyOptional({
    type: 'boolean',
    default: false,
    description: 'Add the agent\'s recorded thoughts (items of kind "thought"). Off by default: reasoning is kept for people, not fed back to the model.',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'includeThoughts must be true or false' })
  includeThoughts?: 'true' | 'false';
}

export class ListSessionsQueryDto {
  @ApiPropertyOptional({ description: 'The nextCursor of the previous page.' })
  @IsOptional()
  @Matches(ID_PATTERN)
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', default: 50, minimum: 1, maximum: 500 })
  @IsOptional()
  @WholeNumberQuery('limit', { max: 500 })
  limit?: number;
}
