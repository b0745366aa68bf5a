/**
 * The kernel client, the image codec and the identity provider's verifier, with their modules imported on first use rather than at
 * start-up (docs/architecture.md §6.3): `GET /health` — FC's first probe of a new instance — needs
 * none of them. Each stand-in forwards every call to the real adapter once its module is loaded.
 */
import type { JsonObject, WireSendParams, WireStreamItem, WireTask } from '../core/a2a/wire-types.js';
import { onceUntilFailure } from '../core/once-until-failure.js';
import type { A2AKernel, ImageCodec, ImageEncoding, ImageInfo, KernelCallOptions, SessionRestoreResult, TokenVerifier, VerifiedToken } from '../core/ports.js';
import type { ProviderMetadata } from './oidc/index.js';

export class LazyKernel implements A2AKernel {
  private readonly kernel: () => Promise<A2AKernel>;
  /** The real adapter once its module has loaded: streams are then handed out as it makes them. */
  private loaded: A2AKernel | undefined;

  constructor(make: () => Promise<A2AKernel>) {
    this.kernel = onceUntilFailure(async () => {
      const kernel = await make();
      this.loaded = kernel;
      return kernel;
    });
  }

  /**
   * Once loaded, the adapter's own stream, not one forwarded through a generator of this class:
   * a live run holds its stream for its whole life, and one layer less (docs/architecture.md §9.6).
   */
  sendStreamingMessage(params: WireSendParams, options?: KernelCallOptions): AsyncIterable<WireStreamItem> {
    return this.loaded ? this.loaded.sendStreamingMessage(params, options) : this.onceLoaded((kernel) => kernel.sendStreamingMessage(params, options));
  }

  subscribeToTask(taskId: string, options?: KernelCallOptions): AsyncIterable<WireStreamItem> {
    return this.loaded ? this.loaded.subscribeToTask(taskId, options) : this.onceLoaded((kernel) => kernel.subscribeToTask(taskId, options));
  }

  private async *onceLoaded(open: (kernel: A2AKernel) => AsyncIterable<WireStreamItem>): AsyncIterable<WireStreamItem> {
    yield* open(await this.kernel());
  }

  async sendMessage(params: WireSendParams, options?: KernelCallOptions): Promise<WireStreamItem> {
    return (await this.kernel()).sendMessage(params, options);
  }

  async getTask(taskId: string, historyLength: number, options?: KernelCallOptions): Promise<WireTask> {
    return (await this.kernel()).getTask(taskId, historyLength, options);
  }

  async cancelTask(taskId: string, options?: KernelCallOptions): Promise<void> {
    return (await this.kernel()).cancelTask(taskId, options);
  }

  async listTasks(contextId: string, historyLength: number, maxTasks: number, options?: KernelCallOptions): Promise<WireTask[] | undefined> {
    return (await this.kernel()).listTasks(contextId, historyLength, maxTasks, options);
  }

  async ensureSessionRestored(request: { cwd: string; sessionId: string; taskId: string }, options?: KernelCallOptions): Promise<SessionRestoreResult> {
    return (await this.kernel()).ensureSessionRestored(request, options);
  }

  async pipelineState(taskId: string, afterSequence: number, options?: KernelCallOptions): Promise<JsonObject | undefined> {
    return (await this.kernel()).pipelineState(taskId, afterSequence, options);
  }
}

export class LazyImageCodec implements ImageCodec {
  private readonly codec: () => Promise<ImageCodec>;

  constructor(make: () => Promise<ImageCodec>) {
    this.codec = onceUntilFailure(make);
  }

  async inspect(bytes: Uint8Array): Promise<ImageInfo> {
    return (await this.codec()).inspect(bytes);
  }

  async verify(bytes: Uint8Array): Promise<void> {
    return (await this.codec()).verify(bytes);
  }

  async encode(bytes: Uint8Array, encoding: ImageEncoding): Promise<Uint8Array> {
    return (await this.codec()).encode(bytes, encoding);
  }
}

/** What the adapter asks of the identity provider (lib/adapters/oidc): tokens checked, and its endpoints for the console's sign-in. */
export interface IdentityProvider extends TokenVerifier {
  metadata(): Promise<ProviderMetadata>;
}

export class LazyIdentityProvider implements IdentityProvider {
  private readonly provider: () => Promise<IdentityProvider>;

  constructor(make: () => Promise<IdentityProvider>) {
    this.provider = onceUntilFailure(make);
  }

  async verify(token: string): Promise<VerifiedToken> {
    return (await this.provider()).verify(token);
  }

  async metadata(): Promise<ProviderMetadata> {
    return (await this.provider()).metadata();
  }
}
