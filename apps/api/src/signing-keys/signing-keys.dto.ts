import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsString, Matches, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { ID_PATTERN } from '@rewind/engine';

const ISO = { strict: true, strictSeparator: true };

/** POST /v1/signing-keys */
export class CreateSigningKeyDto {
  @ApiPropertyOptional({ description: "The tenant whose Kafka commands the key may sign (default: the admin key's own)." })
  @IsOptional()
  @Matches(ID_PATTERN, { message: 'tenantId must be 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone)' })
  tenantId?: string;

  @ApiPropertyOptional({ description: 'A label to recognise the key by.', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({
    description: 'After this instant commands signed with the key are refused (ISO-8601).',
    example: '2027-01-31T00:00:00Z',
    nullable: true,
    type: String,
  })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsISO8601(ISO, { message: 'expiresAt must be an ISO 8601 instant, e.g. 2027-01-31T00:00:00Z' })
  expiresAt?: string | null;
}

/** GET /v1/signing-keys */
export class ListSigningKeysQueryDto {
  @ApiPropertyOptional({ description: "Only this tenant's keys (default: the admin key's tenant); `*` for all." })
  @IsOptional()
  @Matches(/^(\*|[A-Za-z0-9_.-]{1,128})$/, { message: 'tenantId must be a tenant id or *' })
  tenantId?: string;
}
