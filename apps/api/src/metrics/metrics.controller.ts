import { Controller, Get, Header } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/caller.decorator';
import { RewindMetrics } from './metrics';

@ApiTags('health')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: RewindMetrics) {}

  @Get()
  @Public()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOperation({ operationId: 'getMetrics', summary: 'Prometheus metrics (no tenant data; no API key needed)' })
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
