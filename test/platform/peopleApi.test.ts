import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/platform/http';
import { peopleApi } from '../../src/platform/peopleApi';
import { answering } from '../helpers/answeringFetch';

const DEVICES = {
  owner: true,
  passkeys: [{ id: 'pk1', label: 'Chrome on Linux', synced: true, createdAt: '2026-12-01T10:00:00.000Z', lastUsedAt: null }],
  devices: [{ id: 's1', label: 'Chrome on Linux', via: 'passkey', createdAt: '2026-12-01T10:00:00.000Z', seenAt: '2026-12-07T10:00:00.000Z', thisDevice: true }],
};

describe('the people client', () => {
  it('asks who this device is, and checks the answer’s shape', async () => {
    const { fetcher, calls } = answering(200, { kind: 'cookie', owner: false, name: null });
    await expect(peopleApi(fetcher).me()).resolves.toEqual({ kind: 'cookie', owner: false, name: null });
    expect(calls[0]).toMatchObject({ url: '/api/me', init: { method: 'GET', credentials: 'same-origin' } });
    await expect(peopleApi(answering(200, { kind: 'someone' }).fetcher).me()).rejects.toBeInstanceOf(HttpError);
  });

  it('sends the browser’s answer to a ceremony as `response`', async () => {
    const { fetcher, calls } = answering(200, { kind: 'passkey', owner: true, name: null });
    const answer = { id: 'cred', rawId: 'cred', type: 'public-key', response: {}, clientExtensionResults: {} };
    await peopleApi(fetcher).signInVerify(answer as never);
    expect(calls[0]?.url).toBe('/api/passkeys/sign-in/verify');
    expect(JSON.parse(calls[0]?.init?.body as string)).toEqual({ response: answer });
    await expect(peopleApi(answering(200, { rp: {} }).fetcher).registerOptions()).rejects.toBeInstanceOf(HttpError);
  });

  it('shows a refusal as the server’s own sentence, and nothing else', async () => {
    const said = 'That code is not one this server made, or it was used already.';
    await expect(peopleApi(answering(400, { error: said }).fetcher).link('abcd-efgh')).rejects.toThrow(new RegExp(`^${said}$`));
    await expect(peopleApi(answering(403).fetcher).linkCode()).rejects.toThrow(/answered 403/);
    await expect(peopleApi(() => Promise.reject(new TypeError('offline'))).devices()).rejects.toThrow(/could not be reached/);
  });

  it('lists devices, removes one by its id, and signs out', async () => {
    await expect(peopleApi(answering(200, DEVICES).fetcher).devices()).resolves.toEqual(DEVICES);
    const { fetcher, calls } = answering(204);
    const api = peopleApi(fetcher);
    await api.removePasskey('a/b');
    await api.removeDevice('s1');
    await api.signOut();
    expect(calls.map((call) => `${call.init?.method ?? ''} ${call.url}`)).toEqual(['DELETE /api/devices/passkeys/a%2Fb', 'DELETE /api/devices/sessions/s1', 'POST /api/sign-out']);
  });

  it('asks what it has cost in the person’s time zone, and forgets them with the bot’s name as typed', async () => {
    const usage = { bots: [{ bot: 'demo', name: 'Sage', today: { answers: 2, spent: 0.01 }, thisMonth: { answers: 9, spent: 0.04 }, windows: [{ window: 'perHour', answers: 2, answersLimit: 20, spent: 0.01, spendLimit: null, freesAt: null }] }] };
    const asked = answering(200, usage);
    await expect(peopleApi(asked.fetcher).usage('Europe/Lisbon')).resolves.toEqual(usage);
    expect(asked.calls[0]?.url).toBe('/api/me/usage?zone=Europe%2FLisbon');
    const forgot = answering(204);
    await peopleApi(forgot.fetcher).forget('Sage', 'demo');
    expect(JSON.parse(forgot.calls[0]?.init?.body as string)).toEqual({ confirm: 'Sage', bot: 'demo' });
  });

  it('downloads everything as a JSON file', async () => {
    const file = await peopleApi(answering(200, { threads: [], memories: [] }).fetcher).exportFile();
    expect(file.type).toBe('application/json');
    expect(JSON.parse(await file.text())).toEqual({ threads: [], memories: [] });
  });
});
