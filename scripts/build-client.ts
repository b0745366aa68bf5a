/**
 * Builds the client module (lib/client, docs/architecture.md "The client module") to its own ESM
 * bundle, `dist/client/iac-code-client.js`, for a team to import beside its own @ag-ui/client and
 * rxjs (kept external: the app's copies must be the ones its agents and runtime use), with the
 * portable SHA-256 it derives rosInvocationIds with bundled in; and its React renderers
 * (lib/client/react) to `dist/client/iac-code-client-react.js`, React external. Part of `npm run build`; alone:
 * `npx tsx scripts/build-client.ts`.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The React renderers' bundle (lib/client/react): React stays external, an optional peer — the app's own copy, never a second one. */
export async function buildClientReact(outdir = join(ROOT, 'dist', 'client')): Promise<string> {
  const outfile = join(outdir, 'iac-code-client-react.js');
  await build({
    absWorkingDir: ROOT,
    entryPoints: [join(ROOT, 'lib', 'client', 'react', 'index.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: ['es2022'],
    jsx: 'automatic',
    external: ['react', 'react/jsx-runtime', 'react-dom'],
    sourcemap: true,
    logLevel: 'warning',
  });
  return outfile;
}

export async function buildClient(outdir = join(ROOT, 'dist', 'client')): Promise<string> {
  const outfile = join(outdir, 'iac-code-client.js');
  await build({
    absWorkingDir: ROOT,
    entryPoints: [join(ROOT, 'lib', 'client', 'index.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: ['es2022'],
    external: ['@ag-ui/client', '@ag-ui/core', 'rxjs'],
    sourcemap: true,
    logLevel: 'warning',
  });
  return outfile;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(`client module: ${await buildClient()}`);
  console.log(`client React renderers: ${await buildClientReact()}`);
}
