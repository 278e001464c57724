import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import type { JsonObject } from '@rewind/domain';
import { ID_PATTERN } from '@rewind/engine';
import { TEXT } from './messages';

export class StartSessionDto {
  @ApiPropertyOptional({ description: 'Your id for the session (letters, digits, _ - .); generated when absent.', example: 'trip-42' })
  @IsOptional()
  @Matches(ID_PATTERN, { message: 'sessionId must be 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone)' })
  sessionId?: string;

  @ApiPropertyOptional({ example: 'Plan a trip to Lisbon', maxLength: 200 })
  @IsOptional()
  @MaxLength(200)
  @IsString(TEXT)
  title?: string;

  @ApiPropertyOptional({ description: 'Free-form JSON object stored with the session.', type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  metadata?: JsonObject;
}
