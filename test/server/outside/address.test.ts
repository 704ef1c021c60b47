/**
 * Where an outside app's calls may go, over real sockets: a local HTTP server on 127.0.0.1 stands
 * for an address on this machine. A name server that answers a public address to the check and
 * this machine to the connection (DNS rebinding) is refused at the connection, and the server is
 * never asked; with `private: true` the same server answers, and a redirect is answered, not followed.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivateAddressError, guardedFetch } from '../../../server/outside/address';
import type { Lookup } from '../../../server/outside/address';

let server: Server;
let port = 0;
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(`${req.method ?? '?'} ${req.url ?? '?'}`);
    if (req.url === '/moved') res.writeHead(302, { location: '/elsewhere' }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
});

/** A name server that gives `answers` in turn, then the last of them, and counts what it was asked. */
function nameServer(...answers: string[][]): Lookup & { asked: string[] } {
  const names: string[] = [];
  const lookup = (host: string) => {
    names.push(host);
    return Promise.resolve(answers[Math.min(names.length, answers.length) - 1] ?? []);
  };
  return Object.assign(lookup, { asked: names });
}

describe('an outside app’s address, checked where it connects', () => {
  it('refuses a name that rebinds to this machine between the check and the connection, and never reaches it', async () => {
    asked.length = 0;
    const rebinding = nameServer(['93.184.216.34'], ['127.0.0.1']);
    const fetchFn = guardedFetch(undefined, 'shifty', false, rebinding);
    const refused = await fetchFn(`http://rebind.example:${String(port)}/pets/1`).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(PrivateAddressError);
    expect((refused as Error).message).toBe("The shifty app's address (rebind.example) is on this machine or a private network; Confab calls such an address only when the app file says `private: true`.");
    // Asked twice: once by the check, once by the connection — whose answer was the one refused.
    expect(rebinding.asked).toEqual(['rebind.example', 'rebind.example']);
    expect(asked).toEqual([]);
  });

  it('refuses a name whose every answer is private before any connection, and a literal private address without asking', async () => {
    asked.length = 0;
    const inside = nameServer(['10.0.0.5']);
    await expect(guardedFetch(undefined, 'inside', false, inside)(`http://pets.internal:${String(port)}/`)).rejects.toBeInstanceOf(PrivateAddressError);
    expect(inside.asked).toEqual(['pets.internal']);
    const never = nameServer(['93.184.216.34']);
    await expect(guardedFetch(undefined, 'inside', false, never)(`http://127.0.0.1:${String(port)}/`)).rejects.toBeInstanceOf(PrivateAddressError);
    expect(never.asked).toEqual([]);
    expect(asked).toEqual([]);
  });

  it('with private: true reaches this machine, and answers a redirect as it is', async () => {
    asked.length = 0;
    const fetchFn = guardedFetch(undefined, 'inside', true, nameServer(['127.0.0.1']));
    const answered = await fetchFn(`http://127.0.0.1:${String(port)}/pets/1`);
    expect([answered.status, await answered.json()]).toEqual([200, { ok: true }]);
    const moved = await fetchFn(`http://127.0.0.1:${String(port)}/moved`);
    expect([moved.status, moved.headers.get('location')]).toEqual([302, '/elsewhere']);
    expect(asked).toEqual(['GET /pets/1', 'GET /moved']);
  });
});
