/**
 * The tool renderer for CopilotKit's `useDefaultRenderTool` (or `useRenderTool`): the tool's name,
 * its status as iac-code knows it (tool-status.ts: running, waiting for permission, failed, done —
 * where CopilotKit says only inProgress, executing or complete), its arguments and its result.
 *
 *   useDefaultRenderTool({ render: (props) => <IacCodeToolCard {...props} /> });
 */

import { useToolWaiting } from './pending-tools.js';
import { type CopilotToolStatus, TOOL_STATUS_LABELS, toolFailure, toolStatus } from './tool-status.js';

export interface IacCodeToolCardProps {
  name: string;
  toolCallId: string;
  parameters: unknown;
  status: CopilotToolStatus;
  result: string | undefined;
}

export function IacCodeToolCard({ name, toolCallId, parameters, status, result }: IacCodeToolCardProps) {
  const waiting = useToolWaiting(toolCallId);
  const shown = toolStatus(status, result, waiting);
  const failure = toolFailure(result);
  const hasArguments = typeof parameters === 'object' && parameters !== null && Object.keys(parameters).length > 0;
  return (
    <div className="tool-card" data-tool-call-id={toolCallId} data-tool-name={name} data-status={status} data-iac-status={shown}>
      <div className="tool-name">{name}</div>
      <div className="tool-status">{TOOL_STATUS_LABELS[shown]}</div>
      {hasArguments ? <pre className="tool-arguments">{JSON.stringify(parameters)}</pre> : null}
      {failure !== undefined ? <div className="tool-error">{failure}</div> : null}
      {result !== undefined ? <pre className="tool-result">{result}</pre> : null}
    </div>
  );
}
