import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { assertComponentName, componentState } from '@rewind/domain';
import { SessionQueries } from '@rewind/engine';
import { GetComponentStateQuery, type ComponentStateView } from './get-component-state.query';

@QueryHandler(GetComponentStateQuery)
export class GetComponentStateHandler implements IQueryHandler<GetComponentStateQuery, ComponentStateView> {
  constructor(private readonly sessions: SessionQueries) {}

  async execute({ caller, sessionId, name, at }: GetComponentStateQuery): Promise<ComponentStateView> {
    assertComponentName(name);
    const state = await this.sessions.getState(caller, sessionId, at);
    const version = at ?? state.head;
    return { name, value: componentState(state.path.contextVars, name, version), version };
  }
}
