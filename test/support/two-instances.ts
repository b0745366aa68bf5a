/**
 * Two adapter instances as Function Compute runs them (docs/protocol.md §6.12): two real adapter
 * processes (adapter-process.ts) sharing one OSS emulator bucket through the OSS driver and one A2A
 * emulator — all they may share, a bucket and a kernel.
 */
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { type AdapterProcess, startAdapterProcess } from './adapter-process.js';
import { TEST_BUCKET, TEST_KEY } from './oss.js';

export interface TwoInstances {
  kernel: A2AEmulator;
  /** The bucket both share, for a test to read what they stored (test/support/oss.ts). */
  oss: OssEmulator;
  a: AdapterProcess;
  b: AdapterProcess;
  /** Stops both instances, then the emulators. */
  stop(): Promise<void>;
}

/** `env` adds to (or overrides) the configuration both instances get. */
export async function startTwoInstances(env: Record<string, string> = {}): Promise<TwoInstances> {
  const [kernel, oss] = await Promise.all([startA2AEmulator(), startOssEmulator()]);
  const shared = {
    IAC_CODE_AGUI_A2A_URL: kernel.url,
    IAC_CODE_AGUI_STATE_STORE: 'oss',
    IAC_CODE_AGUI_OSS_ENDPOINT: oss.endpoint,
    IAC_CODE_AGUI_OSS_BUCKET: TEST_BUCKET,
    IAC_CODE_AGUI_OSS_REGION: 'cn-hangzhou',
    ALIBABA_CLOUD_ACCESS_KEY_ID: TEST_KEY.accessKeyId,
    ALIBABA_CLOUD_ACCESS_KEY_SECRET: TEST_KEY.accessKeySecret,
    ...env,
  };
  const [a, b] = await Promise.allSettled([startAdapterProcess(shared), startAdapterProcess(shared)]);
  const stopEmulators = () => Promise.all([kernel.close(), oss.close()]).then(() => undefined);
  if (a.status === 'rejected' || b.status === 'rejected') {
    await Promise.all([a, b].map((started) => (started.status === 'fulfilled' ? started.value.stop() : undefined)));
    await stopEmulators();
    throw a.status === 'rejected' ? a.reason : (b as PromiseRejectedResult).reason;
  }
  return {
    kernel,
    oss,
    a: a.value,
    b: b.value,
    async stop() {
      await Promise.all([a.value.stop(), b.value.stop()]);
      await stopEmulators();
    },
  };
}
