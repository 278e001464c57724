import type { EffectDescriptor, SessionCommand } from '@rewind/domain';
import type { ToolRegistry } from '../../tool-registry';
import type { Caller } from '../write-request';

const NO_EFFECTS: ReadonlyMap<string, EffectDescriptor> = new Map();

/** The registered effect of every tool the commands start (a call that declares none gets it); looked up before deciding. */
export async function registeredEffects(
  tools: ToolRegistry | undefined,
  caller: Caller,
  commands: readonly SessionCommand[],
): Promise<ReadonlyMap<string, EffectDescriptor>> {
  if (!tools) return NO_EFFECTS;
  let effects: Map<string, EffectDescriptor> | undefined;
  for (const command of commands) {
    if ((command.type !== 'StartToolCall' && command.type !== 'ProposeToolCall') || effects?.has(command.tool)) continue;
    const effect = (await tools.get(caller.tenantId, command.tool))?.effect;
    if (effect) (effects ??= new Map()).set(command.tool, effect);
  }
  return effects ?? NO_EFFECTS;
}

/** True when deciding the commands needs the tool registry. */
export function startsTool(tools: ToolRegistry | undefined, commands: readonly SessionCommand[]): tools is ToolRegistry {
  return tools !== undefined && commands.some((c) => c.type === 'StartToolCall' || c.type === 'ProposeToolCall');
}
