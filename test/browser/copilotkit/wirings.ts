/**
 * How the CopilotKit runtime of the test app reaches the adapter: one named choice of agent and
 * runner (README "CopilotKit", issue 28). The runtime server takes a wiring by name, so a test
 * file says which one it exercises and nothing else changes.
 *
 * - `plain`: what a team writes on its own today — CopilotKit's `HttpAgent` (its own nested
 *   `@ag-ui/client` 0.0.59, the one the runtime's types are built on) pointed at the adapter's
 *   `POST /`, with our `forwardedProps.iacCode` added (docs/protocol.md §3.5), under the runtime's
 *   default `InMemoryAgentRunner`. No detach-grace header, so a dropped connection (Stop) cancels
 *   the run (§6.8, §6.15 "Whose grace").
 *
 * - `iac-code`: what the README tells a team to write — the client module's `IacCodeAgent` as the
 *   agent and `IacCodeAgentRunner` as the runner (lib/client/, README "Using iac-code from
 *   CopilotKit"). The runner holds nothing in process: run, connect, isRunning and stop all go to
 *   the adapter's routes, so a restarted runtime, or another instance, serves the thread. Both are
 *   built on the project's @ag-ui/client 1.0 and structurally typed for the runtime's 0.0.59: the
 *   runner fits `AgentRunner` as it is; the agent, a 1.0 `AbstractAgent`, takes a cast.
 */
import { type AgentRunner, InMemoryAgentRunner } from '@copilotkit/runtime/v2';
import { IacCodeAgent, IacCodeAgentRunner } from '../../../lib/client/index.js';
// CopilotKit's own copy, not the project's @ag-ui/client 1.0.0: the runtime's AbstractAgent is this one's.
import { type AbstractAgent, HttpAgent, type HttpAgentConfig, type RunAgentInput } from '../../../node_modules/@copilotkit/runtime/node_modules/@ag-ui/client/dist/index.mjs';

export interface WiringOptions {
  /** The adapter's base URL (its `POST /`). */
  adapterUrl: string;
  /** The bearer token, when the adapter wants one. */
  token?: string;
  /** `forwardedProps.iacCode.cwd`. */
  cwd: string;
}

export interface Wiring {
  /** The runtime's agents (CopilotKit's `agents`), `default` the chat's. */
  agents: Record<string, AbstractAgent>;
  /** The runtime's runner; absent: the runtime's default (`InMemoryAgentRunner`). */
  runner?: AgentRunner;
}

/**
 * CopilotKit's `HttpAgent` with our props: every request carries `forwardedProps.iacCode`, its
 * `rosInvocationId` one per thread so a resume repeats it (§3.5, §6.1). The runtime clones the
 * agent per request (`HttpAgent.clone` copies the prototype and HttpAgent's own fields), so
 * `clone` carries `cwd` over.
 */
export class PlainIacCodeHttpAgent extends HttpAgent {
  cwd: string;

  constructor(config: HttpAgentConfig & { cwd: string }) {
    super(config);
    this.cwd = config.cwd;
  }

  protected override requestInit(input: RunAgentInput): RequestInit {
    const iacCode = { schemaVersion: 1, rosInvocationId: `copilotkit-${input.threadId}`, cwd: this.cwd };
    return super.requestInit({ ...input, forwardedProps: { ...(input.forwardedProps ?? {}), iacCode } });
  }

  override clone(): PlainIacCodeHttpAgent {
    const copy = super.clone() as PlainIacCodeHttpAgent;
    copy.cwd = this.cwd;
    return copy;
  }
}

export const WIRINGS = {
  plain: (options: WiringOptions): Wiring => ({
    agents: {
      default: new PlainIacCodeHttpAgent({
        url: `${options.adapterUrl}/`,
        headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
        cwd: options.cwd,
      }),
    },
    runner: new InMemoryAgentRunner(),
  }),
  'iac-code': (options: WiringOptions): Wiring => {
    const config = { url: options.adapterUrl, cwd: options.cwd, ...(options.token ? { headers: { authorization: `Bearer ${options.token}` } } : {}) };
    return {
      // The runtime only reads the agent's description and clones it: the runner does the runs.
      agents: { default: new IacCodeAgent(config) as unknown as AbstractAgent },
      runner: new IacCodeAgentRunner(config),
    };
  },
} satisfies Record<string, (options: WiringOptions) => Wiring>;

export type WiringName = keyof typeof WIRINGS;
