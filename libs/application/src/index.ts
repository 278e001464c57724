// The session write commands are the engine's plain classes, sent on the CommandBus as they are.
export {
  CompleteRollbackCommand,
  CreateCheckpointCommand,
  MoveHeadCommand,
  NameBranchCommand,
  RecordCompensationOutcomeCommand,
  RecordShreddingCommand,
  RecordStepCommand,
  RecordStepsCommand,
  ResolveCompensationCommand,
  RetryCompensationCommand,
  SaveComponentStateCommand,
  StartSessionCommand,
} from '@rewind/engine';
export * from './commands/register-tool.command';
export * from './queries/get-session-state.query';
export * from './queries/get-timeline.query';
export * from './queries/get-events.query';
export * from './queries/get-diff.query';
export * from './queries/get-context.query';
export * from './queries/plan-head-move.query';
export * from './queries/list-tools.query';
export * from './queries/get-tool.query';
export * from './queries/get-component-state.query';
export * from './command-bus-dispatch';
export * from './application.module';
export * from './session-command-handlers';
