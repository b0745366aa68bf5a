/**
 * The packages a function bundle loads at run time from `node_modules` beside it, because esbuild
 * cannot bundle them: sharp, a native Node-API module (docs/architecture.md §4.6). `npm run build`
 * leaves them external and copies them — with their dependencies and the prebuilt binaries for
 * Function Compute's platform, Linux x64 with glibc — into the code folder s.yaml deploys.
 */
import { existsSync } from 'node:fs';
import { cp, readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

/** Imported by the bundle at run time (and so external to esbuild). */
export const RUNTIME_PACKAGES = ['sharp'] as const;

/**
 * Of the packages' optional dependencies, only Function Compute's platform is copied: its
 * runtimes are Linux x64 with glibc (Debian 10–12, glibc ≥ 2.28, which sharp's binaries need).
 */
export const FC_PLATFORM_PACKAGES = ['@img/sharp-linux-x64', '@img/sharp-libvips-linux-x64'] as const;

export interface CopiedPackages {
  /** Package names, in the order they were copied. */
  names: string[];
  bytes: number;
}

interface PackageJson {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** Node's lookup: the dependent's own node_modules, then each node_modules above it up to the root. */
function resolvePackageDir(name: string, fromDir: string, root: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root || dirname(dir) === dir) return undefined;
  }
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    total += entry.isDirectory() ? await folderBytes(join(dir, entry.name)) : (await stat(join(dir, entry.name))).size;
  }
  return total;
}

export async function copyRuntimePackages(root: string, codeDir: string): Promise<CopiedPackages> {
  const copied = new Map<string, string>();
  const visit = async (name: string, fromDir: string, requiredBy: string): Promise<void> => {
    const source = resolvePackageDir(name, fromDir, root);
    if (!source) {
      const hint = (FC_PLATFORM_PACKAGES as readonly string[]).includes(name)
        ? ` (Function Compute's Linux x64 binaries; on another platform install them with: npm install --no-save --os=linux --cpu=x64 --libc=glibc ${FC_PLATFORM_PACKAGES.join(' ')})`
        : ' (run npm ci)';
      throw new Error(`${name}, needed by ${requiredBy}, is not installed${hint}`);
    }
    if (copied.has(source)) return;
    const target = join(codeDir, relative(root, source));
    copied.set(source, name);
    // Nested node_modules are reached by the walk below, so only what this package needs is copied.
    await cp(source, target, { recursive: true, filter: (path) => !relative(source, path).split(/[\\/]/).includes('node_modules') });
    const manifest = JSON.parse(await readFile(join(source, 'package.json'), 'utf8')) as PackageJson;
    for (const dependency of Object.keys(manifest.dependencies ?? {})) await visit(dependency, source, name);
    for (const dependency of Object.keys(manifest.optionalDependencies ?? {})) {
      if ((FC_PLATFORM_PACKAGES as readonly string[]).includes(dependency)) await visit(dependency, source, name);
    }
  };
  for (const name of RUNTIME_PACKAGES) await visit(name, root, 'the function bundle');
  return { names: [...copied.values()], bytes: await folderBytes(join(codeDir, 'node_modules')) };
}
