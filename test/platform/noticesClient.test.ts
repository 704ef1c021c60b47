import { describe, expect, it } from 'vitest';
import { noticesClient } from '../../src/platform/noticesClient';
import { HttpError } from '../../src/platform/http';
import { answering } from '../helpers/answeringFetch';

describe('the notices client', () => {
  it('asks for a bot’s notices under the person’s session and checks their shape', async () => {
    const notice = { id: 'n1', text: 'Call the dentist.', dueAtMs: 1_700_000_000_000 };
    const { fetcher, calls } = answering(200, { notices: [notice] });
    await expect(noticesClient(fetcher).due('sage & co')).resolves.toEqual([notice]);
    expect(calls[0]).toMatchObject({ url: '/api/notices?bot=sage%20%26%20co', init: { method: 'GET', credentials: 'same-origin' } });
    await expect(noticesClient(answering(200, { notices: [{ id: 'n1' }] }).fetcher).due('sage')).rejects.toBeInstanceOf(HttpError);
    await expect(noticesClient(answering(503, {}).fetcher).due('sage')).rejects.toMatchObject({ status: 503 });
    await expect(noticesClient((() => Promise.reject(new TypeError('offline')))).due('sage')).rejects.toBeInstanceOf(HttpError);
  });

  it('claims a notice: 200 is this page’s, 409 another page’s, 404 gone, anything else an error', async () => {
    const mine = answering(200, { notice: {} });
    await expect(noticesClient(mine.fetcher).claim('n/1')).resolves.toBe('mine');
    expect(mine.calls[0]).toMatchObject({ url: '/api/notices/n%2F1/delivered', init: { method: 'POST' } });
    await expect(noticesClient(answering(409, { error: 'Another of your pages has already said this.' }).fetcher).claim('n1')).resolves.toBe('taken');
    await expect(noticesClient(answering(404, {}).fetcher).claim('n1')).resolves.toBe('gone');
    await expect(noticesClient(answering(500, {}).fetcher).claim('n1')).rejects.toBeInstanceOf(HttpError);
  });
});
