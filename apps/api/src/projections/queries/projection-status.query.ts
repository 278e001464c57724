import { Query } from '@nestjs/cqrs';
import type { ProjectionStatus } from '@rewind/projections';

/** Each projection's position, the head of the event log and the lag (operational, not tenant data). */
export class ProjectionStatusQuery extends Query<ProjectionStatus[]> {}
