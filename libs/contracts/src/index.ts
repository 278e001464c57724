export * from './dto/session.dto';
export * from './dto/step.dto';
export * from './dto/head-move.dto';
export * from './dto/query.dto';
export * from './session-commands-from-dtos';
export * from './dto/steps.dto';
export * from './refusals';
export * from './json-input';
