import { ApiPropertyOptional, ApiProperty } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { WholeNumberQuery } from './query-number';
import { ID_PATTERN } from '@rewind/engine';

export class StateQueryDto {
  @ApiPropertyOptional({ description: 'Any version of the stream, on any branch.', minimum: 1 })
  @IsOptional()
  @WholeNumberQuery('at')
  at?: number;
}

export class TimelineQueryDto {
  @ApiPropertyOptional({
    description: 'Page the nodes: only those with versions from here (with `limit`). Paged answers also carry `parents`, the whole DAG in one array.',
    minimum: 1,
  })
  @IsOptional()
  @WholeNumberQuery('from')
  from?: number;

  @ApiPropertyOptional({ description: 'How many versions the page spans; without `from`, the newest ones.', minimum: 1, maximum: 5000 })
  @IsOptional()
  @WholeNumberQuery('limit', { max: 5000 })
  limit?: number;
}

export class EventsQueryDto {
  @ApiPropertyOptional({ default: 1, minimum: 1 })
  @IsOptional()
  @WholeNumberQuery('from')
  from?: number;

  @ApiPropertyOptional({ default: 100, minimum: 1, maximum: 1000 })
  @IsOptional()
  @WholeNumberQuery('limit', { max: 1000 })
  limit?: number;
}

export class DiffQueryDto {
  @ApiProperty({ minimum: 1 })
  @WholeNumberQuery('from')
  from!: number;

  @ApiProperty({ minimum: 1 })
  @WholeNumberQuery('to')
  to!: number;
}

export class ContextQueryDto {
  @ApiPropertyOptional({ description: 'Keep only the newest N turns.', minimum: 1 })
  @IsOptional()
  @WholeNumberQuery('maxTurns')
  maxTurns?: number;

  @ApiPropertyOptional({ description: 'Drop the oldest items until the text fits in this many characters.', minimum: 1 })
  @IsOptional()
  @WholeNumberQuery('maxChars')
  maxChars?: number;

  @ApiPropertyOptional({ description: 'Build the context as it was at this version.', minimum: 1 })
  @IsOptional()
  @WholeNumberQuery('at')
  at?: number;
}

export class ListSessionsQueryDto {
  @ApiPropertyOptional({ description: 'The nextCursor of the previous page.' })
  @IsOptional()
  @Matches(ID_PATTERN)
  cursor?: string;

  @ApiPropertyOptional({ default: 50, minimum: 1, maximum: 500 })
  @IsOptional()
  @WholeNumberQuery('limit', { max: 500 })
  limit?: number;
}
