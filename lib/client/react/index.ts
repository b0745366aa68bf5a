/**
 * The client module's React renderers for CopilotKit (react-core v2), built to their own bundle
 * (`dist/client/iac-code-client-react.js`, React external: an optional peer, the app's own copy):
 * an interrupt renderer for `useInterrupt` driven by the interrupt's `responseSchema`, and a tool
 * renderer that shows a failed tool and one waiting for permission as such (README "Using iac-code
 * from CopilotKit or @ag-ui/client").
 */
export type { AnswerForm, AnswerOption, AnswerTextField } from './answer-options.js';
export { answerForm, answerOptions } from './answer-options.js';
export type { IacCodeInterruptCardProps, InterruptLike } from './interrupt-card.js';
export { IacCodeInterruptCard } from './interrupt-card.js';
export { isWaiting, markWaiting, useToolWaiting } from './pending-tools.js';
export type { IacCodeToolCardProps } from './tool-card.js';
export { IacCodeToolCard } from './tool-card.js';
export type { CopilotToolStatus, IacCodeToolStatus } from './tool-status.js';
export { TOOL_STATUS_LABELS, toolFailure, toolStatus } from './tool-status.js';
