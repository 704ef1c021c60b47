import { describe, expect, it, vi } from 'vitest';
import { timeZoneOf } from '../../../server/chat/turnHeaders';

describe('the time zone a turn names', () => {
  it('is the zone as the runtime names it, the same each time it is asked, and UTC for none or nonsense', () => {
    for (let i = 0; i < 3; i++) {
      expect(timeZoneOf('europe/paris')).toBe('Europe/Paris');
      expect(timeZoneOf('America/New_York')).toBe('America/New_York');
      expect(timeZoneOf('Mars/Olympus_Mons')).toBe('UTC');
    }
    expect(timeZoneOf(undefined)).toBe('UTC');
    expect(timeZoneOf('')).toBe('UTC');
    expect(timeZoneOf(`Europe/${'x'.repeat(80)}`)).toBe('UTC');
  });

  it('keeps nothing per spelling: every turn asks the runtime afresh, so no header can grow a cache', () => {
    const asked = vi.spyOn(Intl.DateTimeFormat.prototype, 'resolvedOptions');
    try {
      for (const spelling of ['europe/paris', 'EUROPE/PARIS', 'Europe/PARIS', 'europe/paris']) expect(timeZoneOf(spelling)).toBe('Europe/Paris');
      expect(asked).toHaveBeenCalledTimes(4);
    } finally {
      asked.mockRestore();
    }
  });
});
