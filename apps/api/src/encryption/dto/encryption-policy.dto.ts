import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsOptional, Matches } from 'class-validator';
import { FIELD_PATH } from '@rewind/tenancy';

const pathMessage = 'each path must be dotted field names, e.g. card.number';

/** PUT /v1/encryption/tools/:name */
export class ToolEncryptionDto {
  @ApiPropertyOptional({ type: [String], description: 'Paths in the tool input always encrypted, e.g. ["ssn", "card.number"].' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @Matches(FIELD_PATH, { each: true, message: pathMessage })
  input?: string[];

  @ApiPropertyOptional({ type: [String], description: 'Paths in the tool output always encrypted.' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @Matches(FIELD_PATH, { each: true, message: pathMessage })
  output?: string[];
}

/** PUT /v1/encryption/memory-keys/:key */
export class MemoryKeyEncryptionDto {
  @ApiProperty({ description: "Whether the memory key's values are always encrypted." })
  @IsBoolean()
  encrypted!: boolean;
}
