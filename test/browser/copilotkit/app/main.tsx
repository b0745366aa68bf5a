/**
 * The project's CopilotKit test app (issue 28): what a team puts in front of the adapter with
 * CopilotKit's v2 React API — `<CopilotKit>` against a CopilotKit runtime, `<CopilotChat>`, and the
 * client module's React renderers (lib/client/react): `IacCodeToolCard` for `useDefaultRenderTool`
 * (failed and waiting tools shown as such) and `IacCodeInterruptCard` for `useInterrupt` (the
 * interrupt's `responseSchema` options as buttons, docs/protocol.md §5.2). Bundled by esbuild at
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
import { IacCodeInterruptCard, IacCodeToolCard } from '../../../../lib/client/react/index.js';

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

function Chat({ threadId }: { threadId: string }) {
  useDefaultRenderTool({ render: (props) => <IacCodeToolCard {...props} /> });
  useInterrupt({
    render: ({ interrupt, resolve, cancel }) =>
      interrupt ? <IacCodeInterruptCard interrupt={interrupt} resolve={resolve} cancel={cancel} /> : <div className="interrupt-card legacy">legacy interrupt</div>,
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
