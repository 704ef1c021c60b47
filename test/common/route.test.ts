import { describe, expect, it } from 'vitest';
import { isPageRoute, parseRoute } from '../../common/route';

describe('routes', () => {
  it('takes the root and the entry file as the home page', () => {
    expect(parseRoute('/')).toEqual({ page: 'home' });
    expect(parseRoute('/index.html')).toEqual({ page: 'home' });
    expect(parseRoute('')).toEqual({ page: 'home' });
  });

  it('names the bot of a voice page, ignoring a trailing slash and case', () => {
    expect(parseRoute('/voice/sage')).toEqual({ page: 'voice', bot: 'sage' });
    expect(parseRoute('/voice/Study-Buddy/')).toEqual({ page: 'voice', bot: 'study-buddy' });
    expect(parseRoute('/voice/bot%2D2')).toEqual({ page: 'voice', bot: 'bot-2' });
  });

  it('refuses a bot name that could not be a bot file', () => {
    for (const path of ['/voice/', '/voice/-lead', '/voice/trail-', '/voice/two--dashes', '/voice/a.b', '/voice/..%2Fetc', '/voice/%E0%A4%A', `/voice/${'a'.repeat(65)}`]) {
      expect(parseRoute(path).page, path).toBe('missing');
    }
    expect(parseRoute(`/voice/${'a'.repeat(64)}`).page).toBe('voice');
  });

  it('takes the link page and the name page, whose code and token stay after the #', () => {
    expect(parseRoute('/link')).toEqual({ page: 'link' });
    expect(parseRoute('/link/')).toEqual({ page: 'link' });
    expect(parseRoute('/invite')).toEqual({ page: 'invite' });
    expect(parseRoute('/link/ABCD-EFGH').page).toBe('missing');
  });

  it('answers only page routes with the page', () => {
    expect(isPageRoute('/voice/sage')).toBe(true);
    expect(isPageRoute('/voice/sage/extra')).toBe(false);
    expect(isPageRoute('/settings')).toBe(false);
    expect(isPageRoute('/link')).toBe(true);
    expect(isPageRoute('/invite')).toBe(true);
  });
});
