import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';

class HeadMoveOptionsDto {
  @ApiPropertyOptional({ description: 'Roll back past irreversible effects; they are recorded as skipped with who acknowledged them.' })
  @IsOptional()
  @IsBoolean()
  acknowledgeIrreversible?: boolean;

  @ApiPropertyOptional({ description: 'Only return the plan (what would be compensated or skipped); nothing changes.' })
  @IsOptional()
  @IsBoolean()
  dryRun?: boolean;

  @ApiPropertyOptional({
    description: 'Wait up to this long for compensations to finish before answering (else 202 at once, follow Location).',
    minimum: 0,
    maximum: 60000,
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(60_000)
  waitMs?: number;
}

export class RollbackDto extends HeadMoveOptionsDto {
  @ApiPropertyOptional({ description: 'The step to make current (any branch). Give this or toCheckpoint.', minimum: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  toVersion?: number;

  @ApiPropertyOptional({ description: 'A checkpoint label. Give this or toVersion.' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  toCheckpoint?: string;
}

export class UndoDto extends HeadMoveOptionsDto {
  @ApiPropertyOptional({ description: 'How many steps to undo (a tool call start and its result are one step).', default: 1, minimum: 1, maximum: 1000 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  steps?: number;
}

export class RedoDto extends HeadMoveOptionsDto {}
