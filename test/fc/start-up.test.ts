/**
 * What a cold start loads (issue 13; docs/architecture.md §6.3): the function bundle's entry and the
 * chunks it imports statically hold only what `GET /health` runs — no validation (zod, ajv), no
 * message catalogue, no A2A SDK, no store driver (ali-oss, node:crypto, node:fs), no image code —
 * and at run time the first `GET /health` is answered without Node loading its fetch implementation
 * (undici), which the first POST then does. Checked on the built bundle under FC's Node 22.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BuiltFunction, PROJECT_ROOT } from '../../scripts/build.js';
import { buildForSuite, FC_NODE, freePort } from './fc-support.js';

const suite = buildForSuite();

/** The entry and every chunk it imports statically, transitively: what Node loads before serving. */
function startUpOutputs(fn: BuiltFunction): string[] {
  const outputs = fn.metafile.outputs;
  const entry = Object.keys(outputs).find((path) => resolve(PROJECT_ROOT, path) === fn.bundle) as string;
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const path = pending.pop() as string;
    if (seen.has(path)) continue;
    seen.add(path);
    for (const imported of outputs[path]?.imports ?? []) if (imported.kind === 'import-statement' && !imported.external) pending.push(imported.path);
  }
  return [...seen];
}

function get(port: number, path: string, method = 'GET', body?: string): Promise<{ status: number; text: string }> {
  return new Promise((done, fail) => {
    const asked = request({ host: '127.0.0.1', port, path, method, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (answer) => {
      let text = '';
      answer.setEncoding('utf8');
      answer.on('data', (chunk: string) => (text += chunk));
      answer.on('end', () => done({ status: answer.statusCode ?? 0, text }));
    });
    asked.on('error', fail);
    asked.end(body);
  });
}

describe('a cold start', () => {
  it('loads only what GET /health runs: no validation, catalogue, SDK, store driver or image code', () => {
    const outputs = startUpOutputs(suite.agui);
    const inputs = outputs.flatMap((path) => Object.keys(suite.agui.metafile.outputs[path]?.inputs ?? {}));
    expect(inputs).toContain('lib/http/app.ts');
    expect(inputs).toContain('lib/adapters/start-adapter.ts');
    const deferred = inputs.filter((input) =>
      /node_modules\/(zod|ajv|@a2a-js|ali-oss|urllib|@noble)\/|lib\/core\/(run|protocol|thread|observe|interrupts|translate)\/|lib\/core\/i18n\/catalogue|lib\/adapters\/(oss-store|file-store|a2a-kernel|image)\//.test(
        input,
      ),
    );
    expect(deferred).toEqual([]);
    const builtins = new Set(
      outputs.flatMap((path) =>
        (suite.agui.metafile.outputs[path]?.imports ?? []).filter((imported) => imported.external && imported.kind === 'import-statement').map((imported) => imported.path),
      ),
    );
    expect(builtins.has('node:crypto')).toBe(false);
    expect(builtins.has('node:fs/promises')).toBe(false);
    // node:http comes through require (scripts/build/http-via-require.ts), never its ES module facade.
    expect(builtins.has('node:http')).toBe(false);
  });

  it('answers its first GET /health without loading Node’s fetch; the first POST loads it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agui-start-up-'));
    suite.scratch.push(dir);
    // Reports, on SIGUSR2, whether Node has loaded its fetch implementation (undici) so far.
    const probe = join(dir, 'probe.mjs');
    await writeFile(
      probe,
      "process.on('SIGUSR2', () => process.stderr.write(JSON.stringify({ undici: process.moduleLoadList.some((name) => name.includes('undici')) }) + '\\n'));\n",
    );
    const port = await freePort();
    const child = spawn(FC_NODE, ['--import', probe, '--enable-source-maps', 'index.mjs'], {
      cwd: suite.agui.codeDir,
      env: {
        PATH: process.env['PATH'],
        FC_SERVER_PORT: String(port),
        IAC_CODE_AGUI_A2A_URL: 'http://127.0.0.1:9/',
        IAC_CODE_AGUI_STATE_DIR: join(dir, 'state'),
        IAC_CODE_AGUI_ALLOW_ANONYMOUS: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const reports: boolean[] = [];
    let buffered = '';
    child.stderr.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        if (line.startsWith('{"undici"')) reports.push((JSON.parse(line) as { undici: boolean }).undici);
      }
    });
    child.stdout.resume();
    const report = async (): Promise<boolean> => {
      const before = reports.length;
      child.kill('SIGUSR2');
      for (let tries = 0; tries < 200 && reports.length === before; tries += 1) await new Promise((done) => setTimeout(done, 10));
      return reports[before] as boolean;
    };
    try {
      let health: { status: number; text: string } | undefined;
      for (let tries = 0; tries < 500 && health === undefined; tries += 1) {
        health = await get(port, '/health').catch(() => undefined);
        if (health === undefined) await new Promise((done) => setTimeout(done, 10));
      }
      expect(health?.status).toBe(200);
      expect(JSON.parse(health?.text ?? '{}')).toMatchObject({ status: 'ok', protocol: 'ag-ui', executionKernel: 'a2a-1.0', store: 'file' });
      expect(await report()).toBe(false);
      // Any POST goes through the Web Request → Response app: now Node's fetch is loaded.
      expect((await get(port, '/', 'POST', '{')).status).toBe(400);
      expect(await report()).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
