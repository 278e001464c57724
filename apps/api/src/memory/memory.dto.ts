import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';

export class RecallDto {
  @ApiProperty({ description: 'The question, as the user asked it (a vague follow-up is rewritten first).', example: 'what about its price?' })
  @IsString()
  @MinLength(1)
  @MaxLength(2000)
  query!: string;

  @ApiPropertyOptional({ type: 'integer', description: 'Hits wanted (default 5).', minimum: 1, maximum: 50 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  k?: number;

  @ApiPropertyOptional({
    description: '`session` (default): this session’s current path; `tenant`: every session of the tenant, each on its current path.',
    enum: ['session', 'tenant'],
  })
  @IsOptional()
  @IsIn(['session', 'tenant'])
  scope?: 'session' | 'tenant';

  @ApiPropertyOptional({ type: 'integer', description: 'Recall as of this version of the session (its ancestry instead of the head’s).', minimum: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  at?: number;

  @ApiPropertyOptional({ description: 'Rewrite a vague follow-up into a standalone question first (default true).' })
  @IsOptional()
  @IsBoolean()
  rewrite?: boolean;
}

export class MemoryPolicyDto {
  @ApiProperty({
    description: '`persistent` indexes and recalls; `none` keeps nothing in memory (and removes what was indexed).',
    enum: ['persistent', 'none'],
  })
  @IsIn(['persistent', 'none'])
  policy!: 'persistent' | 'none';
}
