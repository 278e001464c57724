import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Response shapes (for the OpenAPI document). */

export class SessionSummaryDto {
  @ApiProperty() sessionId!: string;
  @ApiProperty({ type: String, nullable: true }) title!: string | null;
  @ApiProperty({ enum: ['active', 'rolling_back', 'needs_attention'] }) status!: string;
  @ApiProperty({ type: 'integer', description: 'The timeline node whose state is current.' }) head!: number;
  @ApiProperty({ type: 'integer', description: 'The stream version (events recorded).' }) version!: number;
  @ApiProperty({ type: 'integer', description: 'Messages recorded, on every branch.' }) messageCount!: number;
  @ApiProperty({ type: 'integer', description: 'Tool calls started, on every branch.' }) toolCallCount!: number;
  @ApiProperty({ type: 'integer', description: "Messages on the head's branch: what the session's state shows." }) currentBranchMessageCount!: number;
  @ApiProperty({ type: 'integer', description: "Tool calls started on the head's branch." }) currentBranchToolCallCount!: number;
  @ApiProperty({ type: 'integer', description: 'Leaves of the timeline DAG.' }) branchCount!: number;
  @ApiProperty({ type: 'integer', description: 'Effects whose compensation failed in the rollback in progress.' }) failedEffects!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time', description: 'Last activity.' }) updatedAt!: string;
}

export class SessionPageDto {
  @ApiProperty({ type: [SessionSummaryDto] }) items!: SessionSummaryDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last.' }) nextCursor!: string | null;
}

export class AuditEntryDto {
  @ApiPropertyOptional({
    type: 'integer',
    deprecated: true,
    description: "No longer sent: a position in the whole log let a tenant count other tenants' writes. Entries come in log order; page with nextCursor.",
  })
  position?: number;
  @ApiProperty({ type: String, nullable: true, description: 'null for streams that are not sessions (e.g. the tool registry).' }) sessionId!: string | null;
  @ApiProperty() streamId!: string;
  @ApiProperty({ type: 'integer' }) streamVersion!: number;
  @ApiProperty() eventId!: string;
  @ApiProperty() type!: string;
  @ApiProperty() actor!: string;
  @ApiProperty({ format: 'date-time' }) occurredAt!: string;
  @ApiProperty({ type: String, nullable: true }) commandId!: string | null;
  @ApiProperty({ type: String, nullable: true }) correlationId!: string | null;
  @ApiProperty({ type: String, nullable: true }) causationId!: string | null;
}

export class AuditPageDto {
  @ApiProperty({ type: [AuditEntryDto] }) items!: AuditEntryDto[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: "Pass as cursor for the next page (same order); null on the last. Names the page's last event, nothing else.",
  })
  nextCursor!: string | null;
}

export class CompensationOutcomeDto {
  @ApiProperty({ enum: ['pending', 'compensated', 'skipped', 'failed', 'resolved'] }) status!: string;
  @ApiProperty({ type: 'integer' }) attempts!: number;
  @ApiProperty({ type: String, nullable: true }) rollbackId!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The last error, the reason for a skip, or the note of a manual resolution.' }) detail!:
    | string
    | null;
}

export class ToolCallEntryDto {
  @ApiProperty() sessionId!: string;
  @ApiProperty() toolCallId!: string;
  @ApiProperty() tool!: string;
  @ApiProperty({ type: String, nullable: true }) turnId!: string | null;
  @ApiProperty({ type: 'integer' }) startedVersion!: number;
  @ApiProperty({ type: 'integer', nullable: true }) finishedVersion!: number | null;
  @ApiProperty({ enum: ['started', 'succeeded', 'failed'] }) status!: string;
  @ApiProperty({ enum: ['none', 'reversible', 'compensable', 'irreversible'] }) effect!: string;
  @ApiProperty() confirmed!: boolean;
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
  @ApiPropertyOptional({ type: CompensationOutcomeDto, nullable: true, description: 'null when no rollback dealt with the call.' })
  compensation!: CompensationOutcomeDto | null;
  @ApiProperty({ format: 'date-time' }) startedAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class ToolCallPageDto {
  @ApiProperty({ type: [ToolCallEntryDto] }) items!: ToolCallEntryDto[];
  @ApiProperty({ type: String, nullable: true }) nextCursor!: string | null;
}

export class RebuildStateDto {
  @ApiProperty({ type: 'integer' }) position!: number;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class ProjectionStatusDto {
  @ApiProperty({ example: 'sessions' }) name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: 'integer', description: 'Global position of the last event applied.' }) position!: number;
  @ApiProperty({ type: 'integer', description: 'Head of the event log.' }) head!: number;
  @ApiProperty({ type: 'integer', description: 'head - position (0: up to date). Counts events on SQLite; on PostgreSQL positions are sparse.' }) lag!: number;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) updatedAt!: string | null;
  @ApiProperty({ enum: ['active', 'standby', 'failing', 'stopped'], description: "This server's runner for the projection." }) state!: string;
  @ApiProperty({ type: String, nullable: true }) lastError!: string | null;
  @ApiPropertyOptional({ type: RebuildStateDto, nullable: true, description: 'A rebuild in progress (or interrupted).' }) rebuild!: RebuildStateDto | null;
  @ApiProperty({
    type: String,
    nullable: true,
    format: 'date-time',
    description: 'A verifying rebuild has paused the runners until then (it resumes them when done).',
  })
  pausedUntil!: string | null;
}

export class ProjectionsDto {
  @ApiProperty({ type: [ProjectionStatusDto] }) projections!: ProjectionStatusDto[];
}
