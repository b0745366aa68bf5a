/**
 * The `cwd` check (docs/protocol.md §3.6, §10.2): lexical only — the A2A kernel owns the filesystem, so the
 * adapter neither resolves symlinks nor creates directories. The path must be absolute, contain
 * no `..` segment, and lie inside one of the allowed roots when roots are configured.
 */
export type WorkspaceCheck = { ok: true; cwd: string } | { ok: false; reason: 'notAbsolute' | 'parentSegment' | 'outsideRoots' };

/** Collapses duplicate slashes and `.` segments and drops a trailing slash ("/a//./b/" → "/a/b"). */
export function normalisePosixPath(path: string): string {
  const segments = path.split('/').filter((segment) => segment !== '' && segment !== '.');
  return `/${segments.join('/')}`;
}

export function checkWorkspace(cwd: string, allowedRoots: readonly string[]): WorkspaceCheck {
  if (!cwd.startsWith('/')) return { ok: false, reason: 'notAbsolute' };
  if (cwd.split('/').includes('..')) return { ok: false, reason: 'parentSegment' };
  const normalised = normalisePosixPath(cwd);
  if (allowedRoots.length > 0 && !allowedRoots.some((root) => isInside(normalised, normalisePosixPath(root)))) {
    return { ok: false, reason: 'outsideRoots' };
  }
  return { ok: true, cwd: normalised };
}

function isInside(path: string, root: string): boolean {
  return root === '/' || path === root || path.startsWith(`${root}/`);
}
