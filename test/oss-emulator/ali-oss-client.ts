/** The real ali-oss client pointed at an OSS emulator, as every emulator test builds it. */
import OSS from 'ali-oss';

export type Signing = 'V1' | 'V4';
/** @types/ali-oss lacks `sldEnable` (path-style addressing for an IP endpoint). */
export type ClientOptions = OSS.Options & { sldEnable?: boolean };

export function emulatorClient(endpoint: string, signing: Signing, extra: Partial<ClientOptions> = {}): OSS {
  const options: ClientOptions = {
    endpoint,
    bucket: 'agui-state',
    accessKeyId: 'test-ak',
    accessKeySecret: 'test-secret',
    region: 'cn-hangzhou',
    authorizationV4: signing === 'V4',
    sldEnable: true,
    ...extra,
  };
  return new OSS(options);
}
