/**
 * The one way bas opens a file it keeps itself (a run folder's files, the reply cache's entries,
 * `bas view`'s kept indexes): never through a symbolic link, and never anything but a regular
 * file. A link could send a read or a write outside the folder; a FIFO blocks its open (or its
 * first read) until some writer comes, which may be never, and a device such as /dev/zero never
 * ends. Both checks are made on the open itself, so nothing can be swapped in between a check
 * and the open: O_NOFOLLOW refuses a link in the same system call, and O_NONBLOCK makes the open
 * of a FIFO return at once, after which `fstat` of the descriptor says what was opened.
 * (O_NONBLOCK changes nothing for a regular file: its reads and writes never wait on it.)
 */
import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { ConfigError } from '../errors/index.js';

/**
 * The refusal of a symbolic link where bas names the file itself (a run folder's files): a
 * link there could send a write, a truncation or a read outside the folder.
 */
export function linkRefusal(path: string): ConfigError {
  return new ConfigError(
    `${path} is a symbolic link: bas never follows a link for a file it keeps in a run folder (it would write outside the folder); replace the link with the file itself, or choose another folder`,
  );
}

/** What a file that is not a regular one is, in words. */
function kindOf(st: Stats | null): string {
  if (st === null) return 'a FIFO or a device';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a folder';
  return 'not a regular file';
}

/**
 * The refusal of a FIFO, a device, a socket or a folder where bas keeps a file of its own:
 * reading one would wait forever or never end. `st` null: the open itself said so (ENXIO).
 */
export function specialFileRefusal(path: string, st: Stats | null): ConfigError {
  return new ConfigError(
    `${path} is ${kindOf(st)}, not a regular file: bas reads and writes only regular files where it keeps its own (a FIFO or device would block it or never end); remove it, or choose another folder`,
  );
}

const FLAGS = {
  r: constants.O_RDONLY,
  'r+': constants.O_RDWR,
  a: constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
  w: constants.O_WRONLY | constants.O_TRUNC | constants.O_CREAT,
} as const;

/** The error an open failed with, as this module's refusals where one applies. */
function openFailure(path: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return linkRefusal(path);
  // A FIFO opened to write without O_NONBLOCK waits for a reader; with it, it fails at once.
  if (code === 'ENXIO') return specialFileRefusal(path, null);
  return err;
}

/**
 * Opens a file bas keeps (see the header): a link is refused with `linkRefusal`, anything but
 * a regular file with `specialFileRefusal`, both at once; other system errors are thrown as
 * they come. `how`: 'r' to read, 'r+' to read and write, 'a' to append (created if missing),
 * 'w' to truncate (created if missing).
 */
export function openNoFollow(path: string, how: keyof typeof FLAGS): number {
  let fd: number;
  try {
    fd = openSync(path, FLAGS[how] | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o666);
  } catch (err) {
    throw openFailure(path, err);
  }
  const st = fstatSync(fd);
  if (st.isFile()) return fd;
  closeSync(fd);
  throw specialFileRefusal(path, st);
}

/** `openNoFollow(path, 'r')` as a promise of a FileHandle, for readers that must not hold the event loop. */
export async function openNoFollowHandle(path: string): Promise<FileHandle> {
  let fh: FileHandle;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    throw openFailure(path, err);
  }
  const st = await fh.stat();
  if (st.isFile()) return fh;
  await fh.close();
  throw specialFileRefusal(path, st);
}
