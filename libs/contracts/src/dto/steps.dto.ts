import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { plainToInstance, Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsString, Matches, ValidateBy, ValidateNested } from 'class-validator';
import { ID_PATTERN, MAX_STEPS_PER_WRITE } from '@rewind/engine';
import {
  CreateCheckpointDto,
  FailToolCallDto,
  InterruptTurnDto,
  PushTaskDto,
  RecordMessageDto,
  RecordThoughtDto,
  StartToolCallDto,
  SucceedToolCallDto,
  ValueDto,
} from './step.dto';

/**
 * One step of `POST /v1/sessions/:id/steps`: the body of the matching single-step route,
 * plus `kind` and whatever that route takes from its path (toolCallId, key, name, turnId).
 */
export const STEP_KINDS = [
  'message',
  'tool-call',
  'tool-result',
  'tool-failure',
  'memory',
  'memory-erase',
  'context-var',
  'task-push',
  'task-pop',
  'interrupt',
  'thought',
  'checkpoint',
] as const;
export type StepKind = (typeof STEP_KINDS)[number];

const ID_MESSAGE = (field: string) => `${field} must be 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone)`;
const NAME_PATTERN = /^[^\u0000-\u001f]{1,256}$/;
const NAME_MESSAGE = (field: string) => `${field} must be 1-256 printable characters`;

/** Only `kind` is known: an unknown kind is refused by name. */
export class StepDto {
  @ApiProperty({ enum: STEP_KINDS, description: 'Which step: the other fields are those of the matching single-step route.' })
  @IsIn(STEP_KINDS as unknown as string[])
  kind!: StepKind;
}

export class MessageStepDto extends RecordMessageDto {
  @ApiProperty({ enum: ['message'] })
  @IsIn(['message'])
  kind!: 'message';
}

export class ToolCallStepDto extends StartToolCallDto {
  @ApiProperty({ enum: ['tool-call'] })
  @IsIn(['tool-call'])
  kind!: 'tool-call';
}

export class ToolResultStepDto extends SucceedToolCallDto {
  @ApiProperty({ enum: ['tool-result'] })
  @IsIn(['tool-result'])
  kind!: 'tool-result';

  @ApiProperty({ example: 'call-1' })
  @Matches(ID_PATTERN, { message: ID_MESSAGE('toolCallId') })
  toolCallId!: string;
}

export class ToolFailureStepDto extends FailToolCallDto {
  @ApiProperty({ enum: ['tool-failure'] })
  @IsIn(['tool-failure'])
  kind!: 'tool-failure';

  @ApiProperty({ example: 'call-1' })
  @Matches(ID_PATTERN, { message: ID_MESSAGE('toolCallId') })
  toolCallId!: string;
}

export class MemoryStepDto extends ValueDto {
  @ApiProperty({ enum: ['memory'] })
  @IsIn(['memory'])
  kind!: 'memory';

  @ApiProperty({ example: 'preferred-city' })
  @IsString()
  @Matches(NAME_PATTERN, { message: NAME_MESSAGE('key') })
  key!: string;
}

export class MemoryEraseStepDto {
  @ApiProperty({ enum: ['memory-erase'] })
  @IsIn(['memory-erase'])
  kind!: 'memory-erase';

  @ApiProperty({ example: 'preferred-city' })
  @IsString()
  @Matches(NAME_PATTERN, { message: NAME_MESSAGE('key') })
  key!: string;
}

export class ContextVarStepDto extends ValueDto {
  @ApiProperty({ enum: ['context-var'] })
  @IsIn(['context-var'])
  kind!: 'context-var';

  @ApiProperty({ example: 'locale' })
  @IsString()
  @Matches(NAME_PATTERN, { message: NAME_MESSAGE('name') })
  name!: string;
}

export class TaskPushStepDto extends PushTaskDto {
  @ApiProperty({ enum: ['task-push'] })
  @IsIn(['task-push'])
  kind!: 'task-push';
}

export class TaskPopStepDto {
  @ApiProperty({ enum: ['task-pop'] })
  @IsIn(['task-pop'])
  kind!: 'task-pop';
}

export class InterruptStepDto extends InterruptTurnDto {
  @ApiProperty({ enum: ['interrupt'] })
  @IsIn(['interrupt'])
  kind!: 'interrupt';

  @ApiProperty({ example: 'turn-7' })
  @Matches(ID_PATTERN, { message: ID_MESSAGE('turnId') })
  turnId!: string;
}

export class ThoughtStepDto extends RecordThoughtDto {
  @ApiProperty({ enum: ['thought'] })
  @IsIn(['thought'])
  kind!: 'thought';
}

export class CheckpointStepDto extends CreateCheckpointDto {
  @ApiProperty({ enum: ['checkpoint'] })
  @IsIn(['checkpoint'])
  kind!: 'checkpoint';
}

export const STEP_DTOS = {
  message: MessageStepDto,
  'tool-call': ToolCallStepDto,
  'tool-result': ToolResultStepDto,
  'tool-failure': ToolFailureStepDto,
  memory: MemoryStepDto,
  'memory-erase': MemoryEraseStepDto,
  'context-var': ContextVarStepDto,
  'task-push': TaskPushStepDto,
  'task-pop': TaskPopStepDto,
  interrupt: InterruptStepDto,
  thought: ThoughtStepDto,
  checkpoint: CheckpointStepDto,
} as const satisfies Record<StepKind, new () => { kind: StepKind }>;

export type AnyStepDto = InstanceType<(typeof STEP_DTOS)[StepKind]>;

/** The validation constraint of a list item that is not an object; the error names the item itself (`steps.1`). */
export const NOT_AN_OBJECT = 'notAnObject';

const kindOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`);

/** Stands in for a batch item that is not an object, so that it is refused by its index. */
class NotAStep {
  @ValidateBy({
    name: NOT_AN_OBJECT,
    validator: {
      validate: () => false,
      defaultMessage: (args) => `must be an object (a step with a kind, e.g. {"kind": "task-pop"}), not ${(args?.object as NotAStep).item}`,
    },
  })
  item: string;

  constructor(value: unknown) {
    this.item = kindOf(value);
  }
}

/**
 * Each object item becomes the DTO of its kind (StepDto when the kind is unknown, so the kind is
 * refused by name); anything else is refused by its index. (class-transformer's own discriminator
 * dereferences a null item and fails with a 500.)
 */
function toStepDtos(steps: unknown): unknown {
  if (!Array.isArray(steps)) return steps;
  return steps.map((item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return new NotAStep(item);
    const kind = (item as { kind?: unknown }).kind;
    const dto = typeof kind === 'string' && Object.hasOwn(STEP_DTOS, kind) ? STEP_DTOS[kind as StepKind] : StepDto;
    return plainToInstance<object, object>(dto, item, { enableImplicitConversion: false });
  });
}

export class RecordStepsDto {
  @ApiProperty({
    description: `1 to ${MAX_STEPS_PER_WRITE} steps, recorded in order in one atomic write (all or none).`,
    type: 'array',
    // With the mapping, generated clients pick the member by `kind` (not the first whose required fields match).
    items: {
      oneOf: Object.values(STEP_DTOS).map((dto) => ({ $ref: getSchemaPath(dto) })),
      discriminator: { propertyName: 'kind', mapping: Object.fromEntries(Object.entries(STEP_DTOS).map(([kind, dto]) => [kind, getSchemaPath(dto)])) },
    },
    example: [
      { kind: 'message', role: 'user', content: 'Find a hotel in Lisbon.' },
      { kind: 'tool-call', toolCallId: 'call-1', tool: 'search_hotels', input: { city: 'Lisbon' } },
      { kind: 'tool-result', toolCallId: 'call-1', output: { hotels: ['Alfama Inn'] } },
      { kind: 'message', role: 'agent', content: 'Alfama Inn is free.' },
    ],
  })
  // Checked bottom-up, and only the first failure is reported: "is it an array" comes first.
  @ArrayMaxSize(MAX_STEPS_PER_WRITE, { message: `steps must hold at most ${MAX_STEPS_PER_WRITE} steps; split the batch` })
  @ArrayMinSize(1, { message: 'steps must hold at least one step' })
  @IsArray({ message: 'steps must be an array of steps, e.g. [{"kind": "message", "role": "user", "content": "hi"}]' })
  @ValidateNested({ each: true })
  @Transform(({ obj }: { obj: { steps?: unknown } }) => toStepDtos(obj.steps), { toClassOnly: true })
  steps!: AnyStepDto[];
}
