import { Query } from '@nestjs/cqrs';
import type { JsonValue } from '@rewind/domain';
import type { Caller } from '@rewind/engine';

export interface ComponentStateView {
  name: string;
  value: JsonValue;
  /** The session version the state was read at. */
  version: number;
}

/** A named component's state at the head, or at any past version (`at`). */
export class GetComponentStateQuery extends Query<ComponentStateView> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly name: string,
    readonly at?: number,
  ) {
    super();
  }
}
