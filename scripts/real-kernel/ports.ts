/**
 * The first kernel port and the first model port a run of the real kernel may use
 * (`REAL_KERNEL_PORT`, `FAKE_LLM_PORT`; the shared folder's defaults). A run that starts several
 * kernels takes the ports after them, one pair per kernel: several engineers on one machine give
 * each run its own range.
 */
export function basePorts(env: NodeJS.ProcessEnv = process.env): { kernel: number; model: number } {
  return { kernel: port(env['REAL_KERNEL_PORT'], 41242), model: port(env['FAKE_LLM_PORT'], 18080) };
}

function port(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 65_000) throw new Error(`not a port: ${value}`);
  return parsed;
}
