import { describe, expect, it, vi } from 'vitest';
import { onSignedOut, wasSignedOut, watchingSignedOut } from '../../src/platform/signedOut';

const answer = (headers: Record<string, string> = {}) => (() => Promise.resolve(new Response(null, { status: 200, headers }))) as typeof fetch;

describe('noticing a sign-out from another device', () => {
  it('tells its listeners once, from the first answer marked signed out, and remembers it', async () => {
    const told = vi.fn();
    const stop = onSignedOut(told);
    await watchingSignedOut(answer())('/api/start');
    expect(wasSignedOut()).toBe(false);
    await watchingSignedOut(answer({ 'x-confab-signed-out': '1' }))('/api/start');
    await watchingSignedOut(answer({ 'x-confab-signed-out': '1' }))('/api/threads');
    expect(told).toHaveBeenCalledTimes(1);
    expect(wasSignedOut()).toBe(true);
    stop();
  });
});
