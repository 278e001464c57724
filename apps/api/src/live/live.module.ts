import { Module } from '@nestjs/common';
import { LiveController } from './live.controller';
import { LiveFeed } from './live-feed';

/** Server-sent events of committed changes, per session and per tenant (the UI's live updates). */
@Module({ controllers: [LiveController], providers: [LiveFeed] })
export class LiveModule {}
