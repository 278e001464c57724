/** A tool call on one branch: ids may repeat across branches, the version it started at does not. */
export const outcomeKey = (toolCallId: string, startedVersion: number) => `${toolCallId}@${startedVersion}`;
