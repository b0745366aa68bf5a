/**
 * The project's CopilotKit test app (issue 28): what a team puts in front of the adapter with
 * CopilotKit's v2 React API — `<CopilotKit>` against a CopilotKit runtime, `<CopilotChat>`, a tool
 * renderer (`useDefaultRenderTool`) and an interrupt renderer (`useInterrupt`) that offers the
 * interrupt's `responseSchema` options as buttons (docs/protocol.md §5.2). Bundled by esbuild at
 * test time (runtime-server.ts); nothing here is built or checked in.
 *
 * The thread id is the page's `?thread=` (made up and put in the address when absent), so a reload
 * reopens the same thread. Errors CopilotKit reports (`onError`) are logged with console.error,
 * which the tests count as a problem.
 */
import { CopilotChat, CopilotKit, useDefaultRenderTool, useInterrupt } from '@copilotkit/react-core/v2';
import '@copilotkit/react-core/v2/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { type AnswerOption, answerOptions } from './answer-options.js';

function threadIdFromAddress(): string {
  const url = new URL(window.location.href);
  let threadId = url.searchParams.get('thread');
  if (!threadId) {
    threadId = `copilotkit-thread-${crypto.randomUUID()}`;
    url.searchParams.set('thread', threadId);
    window.history.replaceState(null, '', url);
  }
  return threadId;
}

interface ToolCardProps {
  name: string;
  toolCallId: string;
  parameters: unknown;
  status: 'inProgress' | 'executing' | 'complete';
  result: string | undefined;
}

function ToolCard({ name, toolCallId, parameters, status, result }: ToolCardProps) {
  return (
    <div className="tool-card" data-tool-call-id={toolCallId} data-tool-name={name} data-status={status}>
      <div className="tool-name">{name}</div>
      <div className="tool-status">{status}</div>
      {parameters !== undefined && Object.keys(parameters as object).length > 0 ? <pre className="tool-arguments">{JSON.stringify(parameters)}</pre> : null}
      {result !== undefined ? <pre className="tool-result">{result}</pre> : null}
    </div>
  );
}

interface InterruptLike {
  id: string;
  reason?: string;
  message?: string;
  toolCallId?: string;
  responseSchema?: unknown;
  metadata?: Record<string, unknown>;
}

function InterruptCard({ interrupt, resolve, cancel }: { interrupt: InterruptLike; resolve: (payload: unknown) => unknown; cancel: () => unknown }) {
  const options: AnswerOption[] = answerOptions(interrupt.responseSchema, interrupt.metadata);
  return (
    <div className="interrupt-card" data-interrupt-id={interrupt.id} data-reason={interrupt.reason ?? ''}>
      <p className="interrupt-message">{interrupt.message}</p>
      <div className="interrupt-options">
        {options.map((option) => (
          <button key={option.label} type="button" onClick={() => void resolve(option.payload)}>
            {option.label}
          </button>
        ))}
        <button type="button" className="interrupt-cancel" onClick={() => void cancel()}>
          Cancel
        </button>
      </div>
    </div>
  );
}

function Chat({ threadId }: { threadId: string }) {
  useDefaultRenderTool({ render: (props) => <ToolCard {...props} /> });
  useInterrupt({
    render: ({ interrupt, resolve, cancel }) =>
      interrupt ? <InterruptCard interrupt={interrupt as InterruptLike} resolve={resolve} cancel={cancel} /> : <div className="interrupt-card legacy">legacy interrupt</div>,
  });
  return <CopilotChat threadId={threadId} />;
}

function App() {
  const threadId = threadIdFromAddress();
  return (
    <CopilotKit
      runtimeUrl="/api/copilotkit"
      enableInspector={false}
      onError={({ type, context, error }) => {
        console.error(`CopilotKit onError ${type} (${context.source}): ${error instanceof Error ? error.message : String(error)}`);
      }}
    >
      <main id="app" data-thread-id={threadId}>
        <Chat threadId={threadId} />
      </main>
    </CopilotKit>
  );
}

const root = document.getElementById('root');
if (!root) throw new Error('no #root');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
