/**
 * What making speech costs on this device (`VoiceCost`, common/speaking/pace.ts), kept in
 * localStorage per model version, so an answer on a device that has spoken before is cut to what
 * the device can make from its first piece rather than from the safe default. A cost describes the
 * device, not the person: it is never sent anywhere.
 */
import { readVoiceCost, SAFE_COST } from '../../common/speaking/pace';
import type { VoiceCost } from '../../common/speaking/pace';

/** Where the cost of `version` is kept. */
export function voiceCostKey(version: string): string {
  return `confab.voiceCost.${version}`;
}

/** The browser's localStorage, or null where it has none or refuses it (storage turned off). */
function browserStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

/**
 * The cost kept for `version` on this device; `SAFE_COST` when none was kept, storage is off, or
 * what was kept is not a cost. Never throws: without a kept cost the device is measured afresh.
 */
export function loadVoiceCost(version: string, storage: Pick<Storage, 'getItem'> | null = browserStorage()): VoiceCost {
  let kept: string | null;
  try {
    kept = storage?.getItem(voiceCostKey(version)) ?? null;
  } catch {
    return SAFE_COST;
  }
  if (kept === null) return SAFE_COST;
  try {
    return readVoiceCost(JSON.parse(kept));
  } catch {
    return SAFE_COST;
  }
}

/**
 * Keeps `cost` for `version`; answers whether it was kept. A cost that could not be kept (storage
 * full, turned off or private) is measured again on the next visit, and nobody needs to be told.
 */
export function saveVoiceCost(version: string, cost: VoiceCost, storage: Pick<Storage, 'setItem'> | null = browserStorage()): boolean {
  if (storage === null) return false;
  try {
    storage.setItem(voiceCostKey(version), JSON.stringify(cost));
    return true;
  } catch {
    return false;
  }
}
