/**
 * Reading a thread's file only when it is what the driver writes: a regular file (docs/architecture.md
 * §3.5). Anything else at a thread's path — a FIFO, a device, a socket, a symbolic link, a folder —
 * was put there by someone else, and reading it could stop the whole adapter: a FIFO's read waits
 * for a writer forever and the driver's reads are synchronous; a link to `/dev/zero` never ends.
 *
 * So the path is opened without following a link and without waiting (O_NOFOLLOW | O_NONBLOCK: a
 * FIFO opens at once), the opened file is checked, and only a regular file is read — from the same
 * descriptor, so nothing can swap the file between the check and the read.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/** The path holds something other than a regular file the driver could have written. */
export class NotRegularFileError extends Error {
  constructor(path: string, what: string) {
    super(`${path} is ${what}, not a regular file`);
    this.name = 'NotRegularFileError';
  }
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * The file's text, or undefined when nothing is at `path`; NotRegularFileError for anything but a
 * regular file; any other failure as node:fs throws it. Synchronous, as every read of the driver
 * is (docs/architecture.md §3.5).
 */
export function readRegularFileNow(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    // O_NOFOLLOW refuses a symbolic link with ELOOP.
    if (code === 'ELOOP') throw new NotRegularFileError(path, 'a symbolic link');
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new NotRegularFileError(path, kindOf(stats));
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function kindOf(stats: import('node:fs').Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
}
