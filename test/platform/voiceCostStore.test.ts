import { describe, expect, it } from 'vitest';
import { SAFE_COST } from '../../common/speaking/pace';
import type { VoiceCost } from '../../common/speaking/pace';
import { loadVoiceCost, saveVoiceCost, voiceCostKey } from '../../src/platform/voiceCostStore';
import { memoryStorage } from '../helpers/memoryStorage';

const MEASURED: VoiceCost = { prepareMsPerS: 18, stepMsPerS: 47.5, vocodeMsPerS: 90, audioMsPerChar: 66, pieces: 31, provider: 'webgpu' };

describe('the device’s kept voice cost', () => {
  it('is kept per model version and read back as it was', () => {
    const storage = memoryStorage();
    expect(saveVoiceCost('supertonic-3', MEASURED, storage)).toBe(true);
    expect([...storage.items.keys()]).toEqual([voiceCostKey('supertonic-3')]);
    expect(loadVoiceCost('supertonic-3', storage)).toEqual(MEASURED);
    expect(loadVoiceCost('supertonic-2', storage)).toBe(SAFE_COST);
  });

  it('is the safe default when nothing was kept, storage is off, or what was kept is not a cost', () => {
    const storage = memoryStorage();
    expect(loadVoiceCost('supertonic-3', storage)).toBe(SAFE_COST);
    expect(loadVoiceCost('supertonic-3', null)).toBe(SAFE_COST);
    storage.items.set(voiceCostKey('supertonic-3'), '{not json');
    expect(loadVoiceCost('supertonic-3', storage)).toBe(SAFE_COST);
    storage.items.set(voiceCostKey('supertonic-3'), JSON.stringify({ ...MEASURED, audioMsPerChar: -1 }));
    expect(loadVoiceCost('supertonic-3', storage)).toBe(SAFE_COST);
    const refusing = { getItem: () => { throw new DOMException('denied', 'SecurityError'); } };
    expect(loadVoiceCost('supertonic-3', refusing)).toBe(SAFE_COST);
  });

  it('says it could not be kept when storage is full or off, without throwing', () => {
    const full = { setItem: () => { throw new DOMException('full', 'QuotaExceededError'); } };
    expect(saveVoiceCost('supertonic-3', MEASURED, full)).toBe(false);
    expect(saveVoiceCost('supertonic-3', MEASURED, null)).toBe(false);
  });
});
