/**
 * The environment as the adapter reads it inside Function Compute (SPEC §6). FC tells a custom
 * runtime its listening port; the adapter's configuration recognises FC by FC_SERVER_PORT, so
 * the function entry guarantees it is set: FC_SERVER_PORT, else FC_CUSTOM_LISTEN_PORT (the name
 * FC 3.0's environment-variable reference documents), else 9000 — the port s.yaml declares in
 * customRuntimeConfig. FC_* names are reserved for FC, so s.yaml cannot set it itself.
 */
type Env = Record<string, string | undefined>;

export const FC_DEFAULT_PORT = '9000';

export function functionComputeEnv(env: Env): Env {
  return { ...env, FC_SERVER_PORT: env['FC_SERVER_PORT'] || env['FC_CUSTOM_LISTEN_PORT'] || FC_DEFAULT_PORT };
}

/** Fields every log line of this instance carries (no secret among them). */
export function instanceLogFields(env: Env): Record<string, string> {
  const fields: Record<string, string> = {};
  if (env['FC_FUNCTION_NAME']) fields['function'] = env['FC_FUNCTION_NAME'];
  if (env['FC_INSTANCE_ID']) fields['instanceId'] = env['FC_INSTANCE_ID'];
  return fields;
}
