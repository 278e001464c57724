import { Query } from '@nestjs/cqrs';
import type { Readiness } from '@rewind/observability';

/** Whether this process should receive traffic: store reachable, migrations applied, subscribers moving. */
export class ReadinessQuery extends Query<Readiness> {}
