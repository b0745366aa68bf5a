/**
 * The local stack's emulators, as configuration decides them (docs/architecture.md §6): `npm start`
 * starts the built-in A2A emulator when IAC_CODE_AGUI_A2A_URL is unset, and the OSS emulator when
 * IAC_CODE_AGUI_STATE_STORE=oss names no endpoint. The emulators then hand their addresses back as
 * the variables the adapter reads, so the adapter is configured exactly as against real services.
 * Function Compute never starts an emulator.
 */
import { type Secret, secretFrom } from '../../core/secret.js';
import { type Env, setting } from './values.js';

export interface LocalEmulatorPlan {
  /** The built-in A2A emulator, requiring the token the adapter will send it. */
  a2a: { token: Secret | undefined } | undefined;
  /** The OSS emulator, serving this bucket in this region. */
  oss: { bucket: string; region: string } | undefined;
}

export function localEmulatorPlan(env: Env): LocalEmulatorPlan {
  const wantsOss = env['IAC_CODE_AGUI_STATE_STORE'] === 'oss' && setting(env, 'IAC_CODE_AGUI_OSS_ENDPOINT') === undefined;
  return {
    a2a: setting(env, 'IAC_CODE_AGUI_A2A_URL') === undefined ? { token: secretFrom(env['IAC_CODE_AGUI_A2A_TOKEN']) } : undefined,
    oss: wantsOss ? { bucket: setting(env, 'IAC_CODE_AGUI_OSS_BUCKET') ?? 'agui-state', region: setting(env, 'IAC_CODE_AGUI_OSS_REGION') ?? 'cn-hangzhou' } : undefined,
  };
}

/** Where the started emulators listen; the OSS emulator comes with credentials of its own. */
export interface StartedEmulators {
  a2aUrl?: string;
  oss?: { endpoint: string; bucket: string; region: string; credentials: { accessKeyId: string; accessKeySecret: string } };
}

/**
 * The environment the adapter is configured from once the emulators run. The OSS emulator's
 * credentials replace any ALIBABA_CLOUD_* of this shell, which it would not know.
 */
export function envWithEmulators(env: Env, started: StartedEmulators): Env {
  const out: Env = { ...env };
  if (started.a2aUrl) out['IAC_CODE_AGUI_A2A_URL'] = started.a2aUrl;
  if (started.oss) {
    out['IAC_CODE_AGUI_OSS_ENDPOINT'] = started.oss.endpoint;
    out['IAC_CODE_AGUI_OSS_BUCKET'] = started.oss.bucket;
    out['IAC_CODE_AGUI_OSS_REGION'] = started.oss.region;
    out['ALIBABA_CLOUD_ACCESS_KEY_ID'] = started.oss.credentials.accessKeyId;
    out['ALIBABA_CLOUD_ACCESS_KEY_SECRET'] = started.oss.credentials.accessKeySecret;
    out['ALIBABA_CLOUD_SECURITY_TOKEN'] = undefined;
  }
  return out;
}
