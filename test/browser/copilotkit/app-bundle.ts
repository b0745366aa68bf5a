/**
 * Bundles the test app (app/main.tsx) with esbuild into a temporary folder — index.html, app.js,
 * app.css — once per test process; the runtime server serves that folder, so a restarted runtime
 * does not bundle again.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

const HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>iac-code CopilotKit test app</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/app.css"></head>
<body><div id="root" style="height:100vh"></div><script type="module" src="/app.js"></script></body>
</html>
`;

let bundled: Promise<string> | undefined;

async function bundle(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'copilotkit-app-'));
  await build({
    entryPoints: { app: join(import.meta.dirname, 'app', 'main.tsx') },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    outdir: dir,
    define: { 'process.env.NODE_ENV': '"production"' },
    // KaTeX's fonts (CopilotKit renders maths): not needed to test the wiring, left out.
    loader: { '.woff2': 'empty', '.woff': 'empty', '.ttf': 'empty' },
    minify: true,
    logLevel: 'error',
  });
  await writeFile(join(dir, 'index.html'), HTML);
  return dir;
}

/** The folder of the bundled app. */
export function appBundle(): Promise<string> {
  bundled ??= bundle();
  return bundled;
}
