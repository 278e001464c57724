import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { EventStore } from '@rewind/event-store';
import { Public } from '../auth/caller.decorator';
import { EVENT_STORE } from '../infrastructure/tokens';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  @Get()
  @Public()
  @ApiOperation({ operationId: 'getHealth', summary: 'Liveness and store reachability (no API key needed)' })
  async health() {
    return { status: 'ok', store: { lastPosition: await this.store.lastPosition() } };
  }
}
