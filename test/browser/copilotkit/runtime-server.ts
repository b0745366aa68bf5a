/**
 * The CopilotKit runtime of the test app, run as its own process (so it can be killed and started
 * again, and its logs are its own): CopilotKit's v2 `CopilotRuntime` behind its Node listener at
 * `/api/copilotkit`, its agent and runner the wiring named in the configuration (wirings.ts), and
 * the app bundle (app-bundle.ts) at `/` — one origin, as a team serves it.
 *
 *   node --import tsx test/browser/copilotkit/runtime-server.ts '<json RuntimeServerConfig>'
 *
 * Prints `runtime listening on <url>` once it answers; everything CopilotKit logs goes to its
 * stdout and stderr, which the harness keeps (copilotkit-support.ts).
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CopilotRuntime } from '@copilotkit/runtime/v2';
import { createCopilotNodeListener } from '@copilotkit/runtime/v2/node';
import { WIRINGS, type WiringName } from './wirings.js';

export interface RuntimeServerConfig {
  wiring: WiringName;
  adapterUrl: string;
  token?: string;
  cwd: string;
  /** The folder with index.html, app.js and app.css (app-bundle.ts). */
  bundleDir: string;
  /** 0: any free port. */
  port: number;
}

const TYPES: Record<string, string> = { '/': 'text/html; charset=utf-8', '/app.js': 'text/javascript; charset=utf-8', '/app.css': 'text/css; charset=utf-8' };
const FILES: Record<string, string> = { '/': 'index.html', '/app.js': 'app.js', '/app.css': 'app.css' };

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as RuntimeServerConfig;
  const wiring = WIRINGS[config.wiring]({ adapterUrl: config.adapterUrl, cwd: config.cwd, ...(config.token ? { token: config.token } : {}) });
  const runtime = new CopilotRuntime({ agents: wiring.agents, ...(wiring.runner ? { runner: wiring.runner } : {}) });
  const copilot = createCopilotNodeListener({ runtime, basePath: '/api/copilotkit', activateChannels: false });
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path.startsWith('/api/copilotkit')) {
      copilot(request, response).catch((error: unknown) => {
        console.error('runtime handler failed:', error);
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
      return;
    }
    const file = FILES[path];
    if (request.method !== 'GET' || !file) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    readFile(join(config.bundleDir, file)).then(
      (body) => response.writeHead(200, { 'content-type': TYPES[path] ?? 'application/octet-stream', 'cache-control': 'no-store' }).end(body),
      (error: unknown) => {
        console.error('bundle file unreadable:', error);
        response.writeHead(500).end();
      },
    );
  });
  server.listen(config.port, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    console.log(`runtime listening on http://127.0.0.1:${port}`);
  });
  const stop = () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error('runtime server failed to start:', error);
  process.exit(1);
});
