/**
 * One page of the uploads a directory store holds, for the sweep of uploads
 * no blob references: the fan-out directories in order, stopping as soon as
 * the page is full, so a page costs a few directory reads whatever the
 * store's size. An upload's age is the newest modification time of its
 * directory and its files: the directory changes as each part is renamed in,
 * so an upload in flight is young even when its parts were linked from files
 * an export wrote long before. This module's job is the local disk.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { LocationPage } from './byte-store.ts';
import { checkCursor, checkLimit, isLocation, keyOrder } from './part-address.ts';

const TWO_HEX = /^[0-9a-f]{2}$/;

async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    // Gone (never created, or an upload deleted between two reads), or a stray file where a directory would be.
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
}

async function newestChange(dir: string): Promise<Date | undefined> {
  let newest = (await stat(dir).catch(() => undefined))?.mtimeMs;
  if (newest === undefined) return undefined;
  for (const name of await namesIn(dir)) {
    const info = await stat(join(dir, name)).catch(() => undefined);
    if (info !== undefined && info.mtimeMs > newest) newest = info.mtimeMs;
  }
  return new Date(newest);
}

export async function listLocalLocations(objectsDir: string, page: { after?: string | undefined; limit: number }): Promise<LocationPage> {
  const after = checkCursor(page.after);
  const limit = checkLimit(page.limit);
  const found: string[] = [];
  for (const fanOut of (await namesIn(objectsDir)).sort()) {
    if (!TWO_HEX.test(fanOut) || (after !== undefined && fanOut < after.slice(0, 2))) continue;
    const locations = (await namesIn(join(objectsDir, fanOut)))
      .map((name) => `${fanOut}/${name}`)
      .filter((location) => isLocation(location) && (after === undefined || keyOrder(location, after) > 0))
      .sort(keyOrder);
    found.push(...locations);
    // One more than the page, to know whether another page follows.
    if (found.length > limit) break;
  }
  const locations: LocationPage['locations'] = [];
  for (const location of found.slice(0, limit)) {
    const modifiedAt = await newestChange(join(objectsDir, location));
    if (modifiedAt !== undefined) locations.push({ location, modifiedAt });
  }
  return { locations, next: found.length > limit ? (found[limit - 1] ?? null) : null };
}
