import { Controller, Get, Inject } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { EventStore } from '@rewind/event-store';
import { Public } from '../auth/caller.decorator';
import { ApiError } from '../common/api-error';
import { EVENT_STORE } from '../infrastructure/tokens';
import { ReadinessQuery } from './queries/readiness.query';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly queries: QueryBus,
  ) {}

  @Get()
  @Public()
  @ApiOperation({ operationId: 'getHealth', summary: 'Liveness and store reachability (no API key needed)' })
  async health() {
    // The store is asked, but its position is not told: it counts every tenant's writes (the operator reads it in GET /v1/projections).
    await this.store.lastPosition();
    return { status: 'ok', store: { reachable: true } };
  }

  @Get('live')
  @Public()
  @ApiOperation({ operationId: 'getLiveness', summary: 'Liveness: the process answers (no I/O; for a liveness probe)' })
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public()
  @ApiOperation({
    operationId: 'getReadiness',
    summary: 'Readiness: store reachable, migrations applied, subscribers not stalled (503 with the failing checks otherwise)',
  })
  async ready() {
    const readiness = await this.queries.execute(new ReadinessQuery());
    if (!readiness.ready) {
      const failing = readiness.checks.filter((c) => !c.ok);
      throw new ApiError(
        503,
        'not_ready',
        `Not ready: ${failing.map((c) => `${c.name}: ${c.detail}`).join('; ')}.`,
        failing.map((c) => ({ field: c.name, message: c.detail })),
      );
    }
    return { status: 'ready', checks: readiness.checks };
  }
}
