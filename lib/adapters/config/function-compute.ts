/**
 * What Function Compute tells the adapter through its own variables (docs/architecture.md §6,
 * docs/protocol.md §9). FC_* names are reserved for FC, so s.yaml cannot set them itself.
 */
import { type Env, positiveInteger, setting } from './values.js';

/** The port s.yaml declares in customRuntimeConfig.port. */
const FC_DEFAULT_PORT = 9000;

/**
 * FC sets FC_SERVER_PORT for a custom runtime; FC 3.0's environment-variable reference documents
 * FC_CUSTOM_LISTEN_PORT; without either, the port s.yaml declares.
 */
export function functionComputePort(env: Env): number {
  const name = setting(env, 'FC_SERVER_PORT') !== undefined ? 'FC_SERVER_PORT' : 'FC_CUSTOM_LISTEN_PORT';
  return positiveInteger(env, name, FC_DEFAULT_PORT);
}

/** Fields every log line of this instance carries (no secret among them); never fails, so a configuration error's line carries them too. */
export function instanceLogFields(env: Env): Record<string, string> {
  const fields: Record<string, string> = {};
  const functionName = setting(env, 'FC_FUNCTION_NAME');
  const instanceId = setting(env, 'FC_INSTANCE_ID');
  if (functionName) fields['function'] = functionName;
  if (instanceId) fields['instanceId'] = instanceId;
  return fields;
}
