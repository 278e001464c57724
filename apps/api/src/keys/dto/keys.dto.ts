import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { ID_PATTERN } from '@rewind/engine';
import { API_KEY_SCOPES, DEFAULT_ROTATION_GRACE_SECONDS, type ApiKeyScope } from '@rewind/tenancy';

const ISO = { strict: true, strictSeparator: true };
const idMessage = (field: string) => `${field} must be 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone)`;

/** POST /v1/keys */
export class CreateApiKeyDto {
  @ApiProperty({ description: 'A label to recognise the key by.', maxLength: 200 })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({ enum: API_KEY_SCOPES, isArray: true, default: ['write', 'read'], description: 'What the key may do.' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(API_KEY_SCOPES, { each: true, message: `each scope must be one of ${API_KEY_SCOPES.join(', ')}` })
  scopes?: ApiKeyScope[];

  @ApiPropertyOptional({ description: "The tenant the key acts for (default: the admin key's own)." })
  @IsOptional()
  @Matches(ID_PATTERN, { message: idMessage('tenantId') })
  tenantId?: string;

  @ApiPropertyOptional({ description: 'After this instant the key is refused (ISO-8601).', example: '2027-01-31T00:00:00Z' })
  @IsOptional()
  @IsISO8601(ISO, { message: 'expiresAt must be an ISO-8601 date-time, e.g. 2027-01-31T00:00:00Z' })
  expiresAt?: string;
}

/** POST /v1/keys/:keyId/rotate */
export class RotateApiKeyDto {
  @ApiPropertyOptional({
    type: 'integer',
    description: 'Seconds the old secret keeps working, so agents can be redeployed (0: refused at once).',
    default: DEFAULT_ROTATION_GRACE_SECONDS,
    minimum: 0,
    maximum: 2_592_000,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'graceSeconds must be a whole number of seconds' })
  @Min(0)
  @Max(2_592_000)
  graceSeconds?: number;
}

/** PUT /v1/keys/:keyId/expiry */
export class SetApiKeyExpiryDto {
  @ApiProperty({ description: 'After this instant the key is refused (ISO-8601); null: never.', nullable: true, type: String })
  @ValidateIf((_, v) => v !== null)
  @IsISO8601(ISO, { message: 'expiresAt must be an ISO-8601 date-time, e.g. 2027-01-31T00:00:00Z, or null' })
  expiresAt!: string | null;
}

/** GET /v1/keys */
export class ListApiKeysQueryDto {
  @ApiPropertyOptional({ description: "Only this tenant's keys (default: the admin key's tenant); `*` for all." })
  @IsOptional()
  @Matches(/^(\*|(?!\.\.?$)[A-Za-z0-9_.-]{1,128})$/, { message: 'tenantId must be a tenant id or *' })
  tenantId?: string;
}
