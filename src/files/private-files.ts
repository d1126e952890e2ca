import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync, type Stats } from "node:fs";
import { dirname } from "node:path";
import { UnsafeFileError } from "../errors/index.js";

/**
 * The files of the config and state directories (SPEC section 8, "Files"): opened without following symbolic
 * links, refused unless they are regular files, in directories no other user can write to. A symlinked
 * `requests.jsonl` would otherwise append attacker-chosen text wherever it points, and a planted `config.json`
 * in a world-writable directory would send the upstream key elsewhere.
 */

// Windows has neither flag; there the checks below still refuse what is not a regular file.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Owned by this user? Always true where the platform has no uids. */
export const ownedByMe = (stats: Stats): boolean => process.getuid === undefined || stats.uid === process.getuid();

/**
 * Refuses a directory that group or others may write to, as OpenSSH refuses such key files. A missing directory
 * is fine: it is created 0700 when first needed.
 */
export function checkPrivateDir(dir: string): void {
  if (process.platform === "win32") return;
  let stats: Stats;
  try {
    stats = statSync(dir);
  } catch {
    return;
  }
  if (!stats.isDirectory()) {
    throw new UnsafeFileError(`${dir} is not a directory.`, { hint: "Remove it, or point GATEWAY_CONFIG_DIR / GATEWAY_STATE_DIR elsewhere." });
  }
  if ((stats.mode & 0o022) !== 0) {
    throw new UnsafeFileError(`${dir} can be written by other users, so gateway will not use the files in it.`, {
      hint: `Run \`chmod 700 ${dir}\`, then try again.`,
    });
  }
}

/** Flags every open of a private file adds: never follow a symbolic link, never block on a FIFO. */
export const SAFE_OPEN_FLAGS = NOFOLLOW | NONBLOCK;

/** An open that failed because `path` is a symbolic link becomes the user-facing refusal; others are rethrown. */
export function refuseLink(path: string, error: unknown): never {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ELOOP" || code === "EMLINK") {
    throw new UnsafeFileError(`${path} is a symbolic link; gateway only uses regular files there.`, {
      hint: `Remove the link (\`rm ${path}\`) and let gateway create the file.`,
      cause: error,
    });
  }
  throw error;
}

/** Refuses what is not a regular file (a FIFO, a device, a directory). */
export function assertRegular(path: string, stats: Stats): void {
  if (stats.isFile()) return;
  throw new UnsafeFileError(`${path} is not a regular file.`, { hint: `Remove it (\`rm ${path}\`) and let gateway create the file.` });
}

/**
 * Opens `path` without following a symbolic link and without blocking on a FIFO, and checks that it is a
 * regular file. Returns the descriptor and its stats; undefined when the file does not exist.
 */
export function openRegular(path: string, flags: number, mode = 0o600): { fd: number; stats: Stats } | undefined {
  let fd: number;
  try {
    fd = openSync(path, flags | SAFE_OPEN_FLAGS, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    refuseLink(path, error);
  }
  const stats = fstatSync(fd);
  try {
    assertRegular(path, stats);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return { fd, stats };
}

/** The text of a private file, or undefined when it does not exist. */
export function readRegularFile(path: string): { text: string; stats: Stats } | undefined {
  const opened = openRegular(path, constants.O_RDONLY);
  if (!opened) return undefined;
  try {
    return { text: readFileSync(opened.fd, "utf8"), stats: opened.stats };
  } finally {
    closeSync(opened.fd);
  }
}


/**
 * Writes a private file atomically: a temporary file (0600, created exclusively, never through a link) renamed
 * over `path`, in a private directory created 0700 when missing.
 */
export function writePrivateFile(path: string, content: string): void {
  const dir = dirname(path);
  checkPrivateDir(dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  rmSync(temporary, { force: true });
  const opened = openRegular(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL)!;
  try {
    writeSync(opened.fd, content);
  } finally {
    closeSync(opened.fd);
  }
  renameSync(temporary, path);
}
