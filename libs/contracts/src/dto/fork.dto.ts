import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { BOOLEAN, TEXT, WHOLE_NUMBER } from './messages';
import { RecordStepsDto } from './steps.dto';

const BRANCH_NAME = /^[^\u0000-\u001f]{1,100}$/;
const BRANCH_NAME_MESSAGE = { message: 'name must be 1-100 printable characters' };

/**
 * `POST /v1/sessions/:id/fork`: fork from the past (seed 002 §4.2). A rollback to `atVersion`
 * and the steps that start the new branch there, as one command.
 */
export class ForkDto extends RecordStepsDto {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'The past step to start from (any branch).', example: 2 })
  @Min(1)
  @IsInt(WHOLE_NUMBER)
  atVersion!: number;

  @ApiPropertyOptional({ description: 'A name for the new branch (1-100 printable characters).', example: 'Porto instead' })
  @IsOptional()
  @IsString(TEXT)
  @Matches(BRANCH_NAME, { message: 'branchName must be 1-100 printable characters' })
  branchName?: string;

  @ApiPropertyOptional({ description: 'Abandon irreversible effects after atVersion; they are recorded as skipped with who acknowledged them.' })
  @IsOptional()
  @IsBoolean(BOOLEAN)
  acknowledgeIrreversible?: boolean;

  @ApiPropertyOptional({ description: 'Only return the plan of effects to compensate; nothing changes.' })
  @IsOptional()
  @IsBoolean(BOOLEAN)
  dryRun?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 60000,
    description: 'Wait up to this long for compensations (and so the new steps) before answering.',
  })
  @IsOptional()
  @Min(0)
  @Max(60_000)
  @IsInt(WHOLE_NUMBER)
  waitMs?: number;
}

export class NameBranchDto {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'A step of the branch (its first, usually): the branch is called by the nearest name on its path.' })
  @Min(1)
  @IsInt(WHOLE_NUMBER)
  version!: number;

  @ApiProperty({ example: 'Porto instead' })
  @IsString(TEXT)
  @Matches(BRANCH_NAME, BRANCH_NAME_MESSAGE)
  name!: string;
}
