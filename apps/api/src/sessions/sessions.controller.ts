import { Body, Controller, Get, Param, Post, Query, Res, UseInterceptors } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { GetContextQuery, GetDiffQuery, GetEventsQuery, GetSessionStateQuery, GetTimelineQuery, StartSessionCommand } from '@rewind/application';
import { presentState, windowOfTurns, type Caller, type WriteOptions } from '@rewind/engine';
import { CurrentCaller } from '../auth/caller.decorator';
import { WriteHeaders } from '../common/write-headers';
import { ContextQueryDto, DiffQueryDto, EventsQueryDto, lastTurnsOf, SessionStateQueryDto, StartSessionDto, TimelineQueryDto } from '@rewind/contracts';
import { ContextRecallInterceptor } from '../memory/context-recall.interceptor';
import { IdParamPipe } from './path-params';

/** Sessions and their reads: current state, any past state, timeline, events, diff, context. */
@ApiTags('sessions')
@ApiBearerAuth()
@Controller('v1/sessions')
export class SessionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @ApiOperation({ operationId: 'startSession', summary: 'Start a session' })
  @ApiCreatedResponse({ description: 'The session and the events written.' })
  async start(
    @CurrentCaller() caller: Caller,
    @Body() body: StartSessionDto,
    @WriteHeaders() options: WriteOptions,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const result = await this.commands.execute(new StartSessionCommand(caller, body, options));
    reply.header('Location', `/v1/sessions/${result.sessionId}`).header('ETag', `"${result.version}"`);
    return result;
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getSession', summary: 'Current state (the head)' })
  async get(@CurrentCaller() caller: Caller, @Param('id', IdParamPipe) id: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const state = await this.queries.execute(new GetSessionStateQuery(caller, id));
    reply.header('ETag', `"${state.version}"`);
    return presentState(state);
  }

  @Get(':id/state')
  @ApiOperation({ operationId: 'getSessionState', summary: 'State at any version, on any branch (time travel)' })
  async stateAt(@CurrentCaller() caller: Caller, @Param('id', IdParamPipe) id: string, @Query() query: SessionStateQueryDto) {
    const view = presentState(await this.queries.execute(new GetSessionStateQuery(caller, id, query.at)));
    return query.turns === undefined ? view : windowOfTurns(view, lastTurnsOf(query.turns));
  }

  @Get(':id/timeline')
  @ApiOperation({ operationId: 'getTimeline', summary: 'The timeline DAG: nodes, head, branches, checkpoints, rollbacks' })
  timeline(@CurrentCaller() caller: Caller, @Param('id', IdParamPipe) id: string, @Query() query: TimelineQueryDto) {
    const page =
      query.from === undefined && query.limit === undefined
        ? undefined
        : { limit: query.limit ?? 1000, ...(query.from !== undefined ? { from: query.from } : {}) };
    return this.queries.execute(new GetTimelineQuery(caller, id, page));
  }

  @Get(':id/events')
  @ApiOperation({ operationId: 'listEvents', summary: 'Raw events, in stream order (audit)' })
  async events(@CurrentCaller() caller: Caller, @Param('id', IdParamPipe) id: string, @Query() query: EventsQueryDto) {
    const limit = query.limit ?? 100;
    const events = await this.queries.execute(new GetEventsQuery(caller, id, query.from ?? 1, limit));
    const last = events[events.length - 1];
    // Without globalPosition: a position in the whole log tells how much every tenant writes.
    const tenantShaped = events.map(({ globalPosition: _global, ...event }) => event);
    return { sessionId: id, events: tenantShaped, nextFrom: events.length === limit && last ? last.streamVersion + 1 : null };
  }

  @Get(':id/diff')
  @ApiOperation({ operationId: 'getDiff', summary: 'What changed between two versions' })
  diff(@CurrentCaller() caller: Caller, @Param('id', IdParamPipe) id: string, @Query() query: DiffQueryDto) {
    return this.queries.execute(new GetDiffQuery(caller, id, query.from, query.to));
  }

  @Get(':id/context')
  // On this route only: a global interceptor costs every request an AsyncResource and an rxjs chain.
  @UseInterceptors(ContextRecallInterceptor)
  @ApiOperation({ operationId: 'getContext', summary: 'Sanitized LLM context: head path only, interrupted turns as seen, unfinished tool calls stripped' })
  context(@CurrentCaller() caller: Caller, @Param('id', IdParamPipe) id: string, @Query() query: ContextQueryDto) {
    const includeThoughts = query.includeThoughts === 'true';
    if (query.maxTurns === undefined && query.maxChars === undefined && query.at === undefined && !includeThoughts)
      return this.queries.execute(new GetContextQuery(caller, id));
    return this.queries.execute(
      new GetContextQuery(caller, id, {
        ...(query.maxTurns !== undefined ? { maxTurns: query.maxTurns } : {}),
        ...(query.maxChars !== undefined ? { maxChars: query.maxChars } : {}),
        ...(query.at !== undefined ? { at: query.at } : {}),
        ...(includeThoughts ? { includeThoughts } : {}),
      }),
    );
  }
}
