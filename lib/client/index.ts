/**
 * The iac-code client module (docs/architecture.md "The client module"): what a CopilotKit or
 * @ag-ui/client application imports to use the adapter with reattach, Stop, reload and restarts
 * that work (README "Using iac-code from CopilotKit or @ag-ui/client").
 */
export type { CancelTarget } from './cancel-execution.js';
export { cancelExecution } from './cancel-execution.js';
export type { Connection, FetchFn } from './connection.js';
export { routes } from './connection.js';
export type { Failure } from './failures.js';
export type { RunSession } from './follow-run.js';
export type { IacCodeAgentConfig } from './iac-code-agent.js';
export { IacCodeAgent } from './iac-code-agent.js';
export type { IacCodeAgentRunnerOptions, RunnerConnectRequest, RunnerEvent, RunnerRunRequest } from './iac-code-agent-runner.js';
export { IacCodeAgentRunner } from './iac-code-agent-runner.js';
export type { IacCodeProps } from './iac-code-props.js';
export { DEFAULT_DETACH_GRACE_MS, DETACH_GRACE_HEADER, defaultRosInvocationId } from './iac-code-props.js';
export type { ThreadRun } from './thread-client.js';
export { readMessages, readThread } from './thread-client.js';
