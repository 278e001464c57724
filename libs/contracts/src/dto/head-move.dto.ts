import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { TEXT, WHOLE_NUMBER, BOOLEAN } from './messages';

class HeadMoveOptionsDto {
  @ApiPropertyOptional({ description: 'Roll back past irreversible effects; they are recorded as skipped with who acknowledged them.' })
  @IsOptional()
  @IsBoolean(BOOLEAN)
  acknowledgeIrreversible?: boolean;

  @ApiPropertyOptional({ description: 'Only return the plan (what would be compensated or skipped); nothing changes.' })
  @IsOptional()
  @IsBoolean(BOOLEAN)
  dryRun?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    description: 'Wait up to this long for compensations to finish before answering (else 202 at once, follow Location).',
    minimum: 0,
    maximum: 60000,
  })
  @IsOptional()
  @Min(0)
  @Max(60_000)
  @IsInt(WHOLE_NUMBER)
  waitMs?: number;
}

export class RollbackDto extends HeadMoveOptionsDto {
  @ApiPropertyOptional({ type: 'integer', description: 'The step to make current (any branch). Give this or toCheckpoint.', minimum: 1 })
  @IsOptional()
  @Min(1)
  @IsInt(WHOLE_NUMBER)
  toVersion?: number;

  @ApiPropertyOptional({ description: 'A checkpoint label. Give this or toVersion.' })
  @IsOptional()
  @MinLength(1)
  @IsString(TEXT)
  toCheckpoint?: string;
}

export class UndoDto extends HeadMoveOptionsDto {
  @ApiPropertyOptional({
    type: 'integer',
    description: 'How many steps to undo (a tool call start and its result are one step).',
    default: 1,
    minimum: 1,
    maximum: 1000,
  })
  @IsOptional()
  @Min(1)
  @Max(1000)
  @IsInt(WHOLE_NUMBER)
  steps?: number;
}

export class RedoDto extends HeadMoveOptionsDto {}
