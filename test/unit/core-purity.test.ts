/**
 * The core imports no Node and no SDK module (docs/architecture.md §1): every file of lib/core,
 * bundled by esbuild for the neutral platform with nothing external, resolves no `node:*` or
 * Node built-in module, none of the packages only the adapters may use, and nothing of the AG-UI
 * packages at run time (the core imports their types only). A second table shows the check
 * bites on each kind of import.
 */
import { readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { type BuildResult, build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';

const CORE = 'lib/core';

/** Packages the core must not import at run time, and why. */
const FORBIDDEN: Record<string, string> = {
  '@a2a-js/sdk': 'the A2A SDK belongs to lib/adapters/a2a-kernel',
  'ali-oss': 'the OSS client belongs to lib/adapters/oss-store',
  express: 'express belongs to the emulators',
  '@ag-ui/core': 'the core imports AG-UI types only (import type)',
  '@ag-ui/client': 'the AG-UI client is a test dependency',
};

const BUILTINS = new Set(builtinModules);

interface Violation {
  importer: string;
  path: string;
  reason: string;
}

function packageOf(path: string): string {
  const parts = path.split('/');
  return path.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? path);
}

function reasonToRefuse(path: string): string | undefined {
  if (path.startsWith('node:') || BUILTINS.has(path)) return 'a Node built-in module';
  return FORBIDDEN[packageOf(path)];
}

/** Records every refused import (and keeps it out of the bundle) so one run lists them all. */
function refuseImports(found: Violation[]): Plugin {
  return {
    name: 'refuse-imports',
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, (args) => {
        const reason = reasonToRefuse(args.path);
        if (reason === undefined) return undefined;
        found.push({ importer: args.importer, path: args.path, reason });
        return { path: args.path, external: true };
      });
    },
  };
}

type Input = { entryPoints: string[] } | { stdin: string };

async function bundleNeutral(input: Input): Promise<{ violations: Violation[]; result: BuildResult }> {
  const violations: Violation[] = [];
  const result = await build({
    ...('stdin' in input ? { stdin: { contents: input.stdin, resolveDir: CORE, loader: 'ts' } } : { entryPoints: input.entryPoints }),
    bundle: true,
    platform: 'neutral',
    format: 'esm',
    // Shared code goes into common chunks rather than into every entry point's bundle.
    splitting: true,
    // The neutral platform reads no package.json main field by default; CommonJS packages (ajv) need it.
    mainFields: ['module', 'main'],
    outdir: 'core-purity-out',
    write: false,
    logLevel: 'silent',
    plugins: [refuseImports(violations)],
  });
  return { violations, result };
}

function coreFiles(): string[] {
  return readdirSync(CORE, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(CORE, file))
    .sort();
}

describe('the core (lib/core)', () => {
  it('bundles for the neutral platform with no Node, SDK or run-time AG-UI import', async () => {
    // Arrange
    const entryPoints = coreFiles();

    // Act
    const { violations, result } = await bundleNeutral({ entryPoints });

    // Assert
    expect(entryPoints.length).toBeGreaterThan(40);
    expect(result.errors).toEqual([]);
    expect(violations).toEqual([]);
  });

  it.each([
    ['node:crypto', 'a Node built-in module'],
    ['crypto', 'a Node built-in module'],
    ['fs/promises', 'a Node built-in module'],
    ['@a2a-js/sdk/client', FORBIDDEN['@a2a-js/sdk']],
    ['ali-oss', FORBIDDEN['ali-oss']],
    ['express', FORBIDDEN['express']],
    ['@ag-ui/core', FORBIDDEN['@ag-ui/core']],
  ])('refuses a run-time import of %s', async (path, reason) => {
    // Act
    const { violations } = await bundleNeutral({ stdin: `import * as imported from '${path}';\nexport const keep = imported;` });

    // Assert
    expect(violations).toEqual([{ importer: '<stdin>', path, reason }]);
  });

  it('lets a type-only import of @ag-ui/core through: it is erased before bundling', async () => {
    const { violations, result } = await bundleNeutral({ stdin: `import type { Interrupt } from '@ag-ui/core';\nexport const id = (interrupt: Interrupt) => interrupt.id;` });
    expect(result.errors).toEqual([]);
    expect(violations).toEqual([]);
  });
});
