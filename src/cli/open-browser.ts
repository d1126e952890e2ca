/** How long to wait for the launcher (xdg-open, open, PowerShell) to say whether it worked; it usually takes 10-600 ms. */
const LAUNCHER_WAIT_MS = 5_000;

/** Why no browser can be opened here, before trying: a Linux box without a display (SSH, a container, CI). */
export function noDisplay(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (process.platform !== "linux" || env.DISPLAY || env.WAYLAND_DISPLAY) return undefined;
  return "there is no display (DISPLAY and WAYLAND_DISPLAY are unset)";
}

/**
 * Opens `url` in the default browser; resolves with why it failed, or undefined once the launcher has handed the
 * URL on (or has not failed within a few seconds). The launcher's exit code is the only word a CLI gets:
 * xdg-open exits 3 when it finds no tool and 4 when the one it found failed.
 */
export async function openBrowser(url: string): Promise<string | undefined> {
  const { default: open } = await import("open");
  let launcher: Awaited<ReturnType<typeof open>>;
  try {
    launcher = await open(url);
  } catch (error) {
    return `the launcher could not run (${(error as Error).message})`;
  }
  if (launcher.exitCode !== null) return launcher.exitCode === 0 ? undefined : `the launcher exited with code ${launcher.exitCode}`;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), LAUNCHER_WAIT_MS);
    launcher.once("close", (code) => {
      clearTimeout(timer);
      resolve(code === 0 || code === null ? undefined : `the launcher (${launcher.spawnfile}) exited with code ${code}`);
    });
  });
}
