// lockstep's reference fence for a resource without a database (ADR-16, ADR-17): a register on a local
// file system, one directory per record. Copy it.
//
// How it is atomic. Each accepted write is a new version file named by its token, made whole under a
// temporary name, fsynced, and published by link(2) (strict mode: fails if that token's version exists)
// or rename(2) (at-or-above: replaces it), each one atomic step of the file system; the directory is
// fsynced after. The record's value is its highest version's. A writer first asks the fence rule
// (core/fence) against the highest version, and refuses early; but what makes the register safe is that
// a version below the highest is never read: a stale writer frozen between its check and its
// publication (the pause test's "checked" point) publishes a version that nobody will ever read, and is
// told so (refused) by looking again after publishing. So no lock is held, none can go stale when a
// writer dies or is frozen, and no writer waits on another. Versions below the highest are removed by
// the next accepted writer.
//
// Local file systems only: link and rename are atomic there; NFS and object stores give weaker promises.
import { randomUUID } from 'node:crypto';
import { link, mkdir, open, readFile, readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_FENCE_MODE, type FenceMode, fenceAccepts } from '../../core/fence/index.js';

const VERSION_PREFIX = 'v-';
const TOKEN_DIGITS = 20; // 2^63 has 19 digits; zero-padded names sort as the tokens do
const READ_ATTEMPTS = 5; // a version read may vanish under a newer writer's clean-up; look again

export interface RegisterValue {
  readonly token: bigint;
  readonly value: string;
}

/** Called between the check and the publication (the pause test freezes a writer there). */
export type RegisterPause = (point: 'checked') => Promise<void>;

export class FileRegister {
  constructor(
    readonly dir: string,
    readonly mode: FenceMode = DEFAULT_FENCE_MODE,
  ) {}

  /** The guarded write: true when the register took it, false when the fence refused it. */
  async write(token: bigint, value: string, pause: RegisterPause = async () => {}): Promise<boolean> {
    if (token < 0n) throw new RangeError(`token ${token} is negative; fencing tokens are at least 0 (ADR-02)`);
    await mkdir(this.dir, { recursive: true });
    if (!fenceAccepts(await this.highestToken(), token, this.mode)) return false;
    await pause('checked');
    const temporary = join(this.dir, `.tmp-${randomUUID()}`);
    await writeDurably(temporary, value);
    const version = join(this.dir, versionName(token));
    try {
      if (this.mode === 'above') await link(temporary, version);
      else await rename(temporary, version);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return false; // strict: this token has written the record already
    } finally {
      await unlink(temporary).catch(() => undefined); // gone already after a rename
    }
    await syncDirectory(this.dir);
    // Published; it counts only if nothing newer was published since the check.
    if ((await this.highestToken()) !== token) return false;
    await this.removeBelow(token);
    return true;
  }

  /** The record's value: its highest version's; undefined before the first accepted write. */
  async read(): Promise<RegisterValue | undefined> {
    for (let attempt = 1; ; attempt++) {
      const token = await this.highestToken();
      if (token === undefined) return undefined;
      try {
        return { token, value: await readFile(join(this.dir, versionName(token)), 'utf8') };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= READ_ATTEMPTS) throw error;
      }
    }
  }

  private async versions(): Promise<bigint[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    return names.filter((name) => name.startsWith(VERSION_PREFIX) && /^\d+$/.test(name.slice(VERSION_PREFIX.length))).map((name) => BigInt(name.slice(VERSION_PREFIX.length)));
  }

  private async highestToken(): Promise<bigint | undefined> {
    return (await this.versions()).reduce<bigint | undefined>((highest, token) => (highest === undefined || token > highest ? token : highest), undefined);
  }

  private async removeBelow(token: bigint): Promise<void> {
    const stale = (await this.versions()).filter((version) => version < token);
    await Promise.all(stale.map((version) => unlink(join(this.dir, versionName(version))).catch(() => undefined)));
  }
}

function versionName(token: bigint): string {
  return `${VERSION_PREFIX}${token.toString().padStart(TOKEN_DIGITS, '0')}`;
}

async function writeDurably(path: string, text: string): Promise<void> {
  const file = await open(path, 'wx', 0o644);
  try {
    await file.writeFile(text, 'utf8');
    await file.sync();
  } finally {
    await file.close();
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
