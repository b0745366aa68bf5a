/**
 * The OSS driver against the real OSS emulator (lib/emulators/oss) for tests: settings, stores,
 * a second "instance" on the same bucket, a raw ali-oss client for what no driver would do
 * (overwriting an object), and readers of what the bucket holds.
 */
import OSS from 'ali-oss';
import type { OssSettings } from '../../lib/adapters/config.js';
import { decodeEnvelope, type Envelope } from '../../lib/adapters/oss-store/envelope.js';
import { revisionKey, revisionOfKey, revisionsPrefix } from '../../lib/adapters/oss-store/keys.js';
import { AliOssObjects, type OssObjects } from '../../lib/adapters/oss-store/objects.js';
import { type OssStoreOptions, OssThreadStore } from '../../lib/adapters/oss-store/thread-store.js';
import { Secret } from '../../lib/core/secret.js';
import type { OssEmulator } from '../../lib/emulators/oss/server.js';

export const TEST_BUCKET = 'agui-state';
export const TEST_KEY = { accessKeyId: 'test-ak', accessKeySecret: 'test-secret' };

export interface TestStoreOptions extends Partial<Omit<OssStoreOptions, 'cache'>> {
  signature?: 'v1' | 'v4';
  timeoutMs?: number;
  accessKeyId?: string;
  accessKeySecret?: string;
  securityToken?: string;
  /** Wraps the real client (interleavings the emulator cannot produce on its own). */
  wrap?: (objects: OssObjects) => OssObjects;
}

export function ossSettings(emulator: OssEmulator, overrides: Partial<OssSettings> = {}): OssSettings {
  return {
    bucket: TEST_BUCKET,
    endpoint: emulator.endpoint,
    region: 'cn-hangzhou',
    pathStyle: true,
    signature: 'v4',
    prefix: 'agui',
    timeoutMs: 2_000,
    credentials: { accessKeyId: new Secret(TEST_KEY.accessKeyId), accessKeySecret: new Secret(TEST_KEY.accessKeySecret), securityToken: undefined },
    ...overrides,
  };
}

export function ossObjects(emulator: OssEmulator, options: TestStoreOptions = {}): OssObjects {
  const objects = new AliOssObjects(
    { endpoint: emulator.endpoint, bucket: TEST_BUCKET, region: 'cn-hangzhou', signature: options.signature ?? 'v4', timeoutMs: options.timeoutMs ?? 2_000, pathStyle: true },
    { accessKeyId: options.accessKeyId ?? TEST_KEY.accessKeyId, accessKeySecret: options.accessKeySecret ?? TEST_KEY.accessKeySecret, securityToken: options.securityToken },
  );
  return options.wrap ? options.wrap(objects) : objects;
}

/** A driver instance, as one adapter process would hold it (its own client and revision cache). */
export function ossStore(emulator: OssEmulator, options: TestStoreOptions = {}): OssThreadStore {
  const { signature: _signature, timeoutMs: _timeout, accessKeyId: _id, accessKeySecret: _secret, securityToken: _token, wrap: _wrap, ...storeOptions } = options;
  return new OssThreadStore(ossObjects(emulator, options), { prefix: 'agui', backoffMs: 5, ...storeOptions });
}

/** A raw client, for writes no driver makes (plain overwrites). */
export function rawClient(emulator: OssEmulator): OSS {
  const options: OSS.Options & { sldEnable?: boolean } = {
    endpoint: emulator.endpoint,
    bucket: TEST_BUCKET,
    region: 'oss-cn-hangzhou',
    accessKeyId: TEST_KEY.accessKeyId,
    accessKeySecret: TEST_KEY.accessKeySecret,
    sldEnable: true,
  };
  return new OSS(options);
}

/** The revisions the bucket holds for a thread, newest first. */
export function storedRevisions(emulator: OssEmulator, threadId: string, prefix = 'agui'): number[] {
  const threadPrefix = revisionsPrefix(prefix, threadId);
  return emulator
    .objectKeys(TEST_BUCKET)
    .map((key) => revisionOfKey(threadPrefix, key))
    .filter((revision): revision is number => revision !== undefined);
}

export function storedEnvelope(emulator: OssEmulator, threadId: string, revision: number, prefix = 'agui'): Envelope | undefined {
  const body = emulator.readObject(TEST_BUCKET, revisionKey(revisionsPrefix(prefix, threadId), revision));
  return body === undefined ? undefined : decodeEnvelope(body, revision);
}

export function objectKeyOf(threadId: string, revision: number, prefix = 'agui'): string {
  return revisionKey(revisionsPrefix(prefix, threadId), revision);
}

/**
 * The real client with some calls intercepted — for interleavings the emulator cannot produce on
 * its own (another instance acting between two requests of one save). Everything still goes to OSS.
 */
export function interpose(objects: OssObjects, overrides: Partial<OssObjects>): OssObjects {
  return {
    create: overrides.create ?? ((key, body) => objects.create(key, body)),
    read: overrides.read ?? ((key) => objects.read(key)),
    list: overrides.list ?? ((prefix, options) => objects.list(prefix, options)),
    remove: overrides.remove ?? ((key) => objects.remove(key)),
    removeMany: overrides.removeMany ?? ((keys) => objects.removeMany(keys)),
  };
}
