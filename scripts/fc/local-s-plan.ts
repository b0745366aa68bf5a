/**
 * What `npm run local:s` runs (docs/deploy.md, "s local"), as pure functions so a test can check
 * the exact command line and environment on a machine without Docker:
 *
 * - `s local start -t s.local.yaml`: the fc3 component runs the function in FC's own runtime image
 *   (`docker run … aliyunfc/runtime:custom.debian12-… --http --server`), with the code folder at
 *   /code and the Nodejs22 layer, downloaded through the FC API with the deployer's `access`
 *   credentials, at /opt — so the container starts exactly s.yaml's command. The component takes
 *   no Docker flags (devsapp/fc3 src/commands-help/local.ts: only -e, -f, -c, -d), so everything the
 *   container needs comes through s.yaml's variables, rendered from the environment set here.
 * - The emulators listen on this machine; the container reaches them at `host.docker.internal` on
 *   Docker Desktop (macOS, Windows), and at the docker0 bridge's gateway address on Linux, where
 *   that name is not defined without a `--add-host` flag the component does not pass.
 */
import { join } from 'node:path';

type Env = Record<string, string | undefined>;

export interface LocalSInput {
  platform: NodeJS.Platform;
  /** Linux only: the bridge network's gateway (`docker network inspect bridge`), the host as containers see it. */
  bridgeGateway?: string;
  a2a: { port: number; token: string };
  oss: { port: number; bucket: string; region: string; credentials: { accessKeyId: string; accessKeySecret: string } };
  /** The bearer token the function requires (IAC_CODE_AGUI_AUTH_TOKEN). */
  authToken: string;
  /** The caller's environment: kept for s itself (PATH, HOME, Docker and proxy settings), never for the function. */
  env: Env;
  root: string;
}

export interface LocalSPlan {
  /** Where the emulators listen on this machine. */
  bindHost: string;
  /** The host name or address the container uses for them. */
  hostForContainer: string;
  a2aUrl: string;
  ossEndpoint: string;
  command: string[];
  env: Record<string, string>;
}

/** Docker Desktop routes host.docker.internal to the host; Linux's engine has no such name by default. */
const DOCKER_DESKTOP_PLATFORMS: readonly NodeJS.Platform[] = ['darwin', 'win32'];
/** s.yaml requires a role; `s local start` never assumes it. */
export const UNUSED_ROLE_ARN = 'acs:ram::0000000000000000:role/local-s-unused';

/** The function's settings come only from the plan: none of the caller's adapter or cloud variables leak in. */
function isFunctionSetting(name: string): boolean {
  return name.startsWith('IAC_CODE_AGUI_') || name.startsWith('ALIBABA_CLOUD_');
}

export function localSPlan(input: LocalSInput): LocalSPlan {
  let bindHost: string;
  let hostForContainer: string;
  if (DOCKER_DESKTOP_PLATFORMS.includes(input.platform)) {
    // Docker Desktop reaches the host's interfaces from its VM; the emulators still check the token and signatures.
    bindHost = '0.0.0.0';
    hostForContainer = 'host.docker.internal';
  } else {
    if (!input.bridgeGateway) throw new Error('the docker bridge gateway is unknown (docker network inspect bridge)');
    // Bound to the bridge only: reachable from this machine and its containers, not from the network.
    bindHost = input.bridgeGateway;
    hostForContainer = input.bridgeGateway;
  }
  const a2aUrl = `http://${hostForContainer}:${input.a2a.port}/`;
  const ossEndpoint = `http://${hostForContainer}:${input.oss.port}`;
  const kept = Object.fromEntries(Object.entries(input.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !isFunctionSetting(entry[0])));
  const env: Record<string, string> = {
    ...kept,
    IAC_CODE_AGUI_FC_REGION: input.env['IAC_CODE_AGUI_FC_REGION'] || input.oss.region,
    IAC_CODE_AGUI_FC_FUNCTION_NAME: input.env['IAC_CODE_AGUI_FC_FUNCTION_NAME'] || 'iac-code-agui',
    IAC_CODE_AGUI_FC_ROLE_ARN: UNUSED_ROLE_ARN,
    IAC_CODE_AGUI_A2A_URL: a2aUrl,
    // Read by s.local.yaml, with the OSS endpoint: where the container finds the emulators.
    IAC_CODE_AGUI_A2A_TOKEN: input.a2a.token,
    IAC_CODE_AGUI_AUTH_TOKEN: input.authToken,
    IAC_CODE_AGUI_OSS_BUCKET: input.oss.bucket,
    IAC_CODE_AGUI_OSS_ENDPOINT: ossEndpoint,
    IAC_CODE_AGUI_OSS_REGION: input.oss.region,
    IAC_CODE_AGUI_OSS_PREFIX: 'agui',
    // The emulator is the endpoint: no region's internal one.
    IAC_CODE_AGUI_OSS_INTERNAL: '0',
    IAC_CODE_AGUI_LOG_LEVEL: input.env['IAC_CODE_AGUI_LOG_LEVEL'] || 'info',
    // Read by s.local.yaml: the OSS emulator's key becomes the function's role credentials.
    IAC_CODE_AGUI_LOCAL_OSS_ACCESS_KEY_ID: input.oss.credentials.accessKeyId,
    IAC_CODE_AGUI_LOCAL_OSS_ACCESS_KEY_SECRET: input.oss.credentials.accessKeySecret,
  };
  return { bindHost, hostForContainer, a2aUrl, ossEndpoint, command: [join(input.root, 'node_modules', '.bin', 's'), 'local', 'start', '-t', 's.local.yaml'], env };
}

export type DockerCheck = { ok: true } | { ok: false; reason: string };

/** Why `npm run local:s` cannot run, and what to do instead. */
export function dockerUnavailableMessage(reason: string): string {
  return [
    `local:s needs a running Docker engine, and this machine has none: ${reason}`,
    '',
    "`s local start` runs the function inside Function Compute's own runtime image (custom.debian12 with",
    'the Nodejs22 layer), so it needs Docker (Docker Desktop, or dockerd on Linux) and an `s config` access',
    'alias allowed to read the official layer (it downloads it through the FC API).',
    '',
    'Without Docker, `npm run local:fc` runs the same built bundle with the same command, arguments and',
    'variables from s.yaml, on the same Node 22, directly on this machine (docs/deploy.md, "Rehearse locally").',
  ].join('\n');
}
