import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { assertComponentName, COMPONENT_VARIABLE_PREFIX, notFound } from '@rewind/domain';
import { SessionQueries } from '@rewind/engine';
import { GetComponentStateQuery, type ComponentStateView } from './get-component-state.query';

@QueryHandler(GetComponentStateQuery)
export class GetComponentStateHandler implements IQueryHandler<GetComponentStateQuery, ComponentStateView> {
  constructor(private readonly sessions: SessionQueries) {}

  async execute({ caller, sessionId, name, at }: GetComponentStateQuery): Promise<ComponentStateView> {
    assertComponentName(name);
    const state = await this.sessions.getState(caller, sessionId, at);
    const version = at ?? state.head;
    const key = COMPONENT_VARIABLE_PREFIX + name;
    if (!Object.hasOwn(state.path.contextVars, key)) {
      throw notFound('component_not_found', `Component "${name}" has no saved state at version ${version}: save it with PUT …/components/${name} first.`);
    }
    return { name, value: state.path.contextVars[key]!, version };
  }
}
