import { ApiPropertyOptional, ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { ID_PATTERN } from '@rewind/engine';

export class StateQueryDto {
  @ApiPropertyOptional({ description: 'Any version of the stream, on any branch.', minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'at must be a whole number' })
  @Min(1)
  at?: number;
}

export class TimelineQueryDto {
  @ApiPropertyOptional({
    description: 'Page the nodes: only those with versions from here (with `limit`). Paged answers also carry `parents`, the whole DAG in one array.',
    minimum: 1,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'from must be a whole number' })
  @Min(1)
  from?: number;

  @ApiPropertyOptional({ description: 'How many versions the page spans; without `from`, the newest ones.', minimum: 1, maximum: 5000 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be a whole number' })
  @Min(1)
  @Max(5000)
  limit?: number;
}

export class EventsQueryDto {
  @ApiPropertyOptional({ default: 1, minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  from?: number;

  @ApiPropertyOptional({ default: 100, minimum: 1, maximum: 1000 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;
}

export class DiffQueryDto {
  @ApiProperty({ minimum: 1 })
  @Type(() => Number)
  @IsInt({ message: 'from must be a whole number' })
  @Min(1)
  from!: number;

  @ApiProperty({ minimum: 1 })
  @Type(() => Number)
  @IsInt({ message: 'to must be a whole number' })
  @Min(1)
  to!: number;
}

export class ContextQueryDto {
  @ApiPropertyOptional({ description: 'Keep only the newest N turns.', minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  maxTurns?: number;

  @ApiPropertyOptional({ description: 'Drop the oldest items until the text fits in this many characters.', minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  maxChars?: number;

  @ApiPropertyOptional({ description: 'Build the context as it was at this version.', minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  at?: number;
}

export class ListSessionsQueryDto {
  @ApiPropertyOptional({ description: 'The nextCursor of the previous page.' })
  @IsOptional()
  @Matches(ID_PATTERN)
  cursor?: string;

  @ApiPropertyOptional({ default: 50, minimum: 1, maximum: 500 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;
}
