import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { ProjectionStatus } from '@rewind/projections';
import { ReadModelsService } from '../read-models.service';
import { ProjectionStatusQuery } from './projection-status.query';

@QueryHandler(ProjectionStatusQuery)
export class ProjectionStatusHandler implements IQueryHandler<ProjectionStatusQuery, ProjectionStatus[]> {
  constructor(private readonly readModels: ReadModelsService) {}

  execute(): Promise<ProjectionStatus[]> {
    return this.readModels.status();
  }
}
