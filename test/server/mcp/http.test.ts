/**
 * MCP over Streamable HTTP at /mcp, driven by the official SDK client (`@modelcontextprotocol/client`)
 * against a Confab server on a real port — in both protocol eras the SDK speaks: the 2025 handshake
 * (`legacy`, the client's default) and the 2026-07-28 per-request envelope (`auto` negotiates it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { mcpTools } from '../../../server/mcp/tools';
import { hashOfToken } from '../../../server/mcp/token';
import { personOf, startConfabMcp } from './confabMcp';
import type { ConfabMcp } from './confabMcp';
import { probeSeen } from './probeApp';

let confab: ConfabMcp;

beforeAll(async () => {
  confab = await startConfabMcp();
});

afterAll(async () => {
  await confab.close();
});

const textOf = (result: { content?: unknown }) => ((result.content as { type: string; text: string }[] | undefined) ?? []).map((c) => c.text).join('');

for (const mode of ['legacy', 'auto'] as const) {
  describe(`MCP over HTTP (${mode === 'legacy' ? '2025 handshake' : '2026-07-28 envelope'})`, () => {
    let client: Client;
    let person: string;

    beforeAll(async () => {
      person = `person-${mode}`;
      const made = await confab.tokenFor(person, ['both']);
      client = await confab.client(made.token, mode);
    });

    it('lists exactly the projection of the verbs of the token’s bots’ apps, with their schemas and annotations', async () => {
      const { tools } = await client.listTools();
      const registry = confab.api.executor.registry;
      const expected = mcpTools(registry.verbs.filter((v) => v.name.startsWith('lists.') || v.name.startsWith('probe.')));
      expect(tools.map((t) => t.name)).toEqual(expected.map((t) => t.name));
      for (const tool of expected) {
        const listed = tools.find((t) => t.name === tool.name);
        expect(listed?.description).toBe(tool.description);
        expect(listed?.inputSchema).toEqual(tool.inputSchema);
        expect(listed?.outputSchema).toEqual(tool.outputSchema);
        expect(listed?.annotations).toEqual(tool.annotations);
      }
    });

    it('runs a read as the token’s person, through the bot that has its app, and answers structured content and the same JSON as text', async () => {
      const result = await client.callTool({ name: 'probe-now', arguments: {} });
      expect(result.isError).toBeFalsy();
      const structured = result.structuredContent as { bot: string; via: string };
      expect(structured).toMatchObject({ bot: 'both', via: 'mcp' });
      expect(JSON.parse(textOf(result))).toEqual(structured);
    });

    it('makes a write visible to the person’s own reads, and a retry with the same key returns the first result without doing it again', async () => {
      const key = `${mode}-add-milk-0001`;
      const first = await client.callTool({ name: 'lists-add', arguments: { list: 'shopping', items: ['milk'], idempotencyKey: key } });
      expect(first.isError).toBeFalsy();
      const again = await client.callTool({ name: 'lists-add', arguments: { list: 'shopping', items: ['milk'], idempotencyKey: key } });
      expect(again.structuredContent).toEqual(first.structuredContent);
      // The page's side: the executor reading as the person, as the door's tool loop does.
      const read = await confab.api.executor.execute({ verb: 'lists.read', input: { list: 'shopping' }, caller: { person: personOf(person), bot: 'both', via: 'model', timeZone: 'UTC' } });
      expect(read.ok && read.output).toMatchObject({ items: ['milk'], total: 1 });
    });

    it('refuses a key reused for another input, and a write without a key', async () => {
      const key = `${mode}-note-key-000001`;
      const first = await client.callTool({ name: 'probe-note', arguments: { text: 'one', idempotencyKey: key } });
      expect(first.isError).toBeFalsy();
      const other = await client.callTool({ name: 'probe-note', arguments: { text: 'two', idempotencyKey: key } });
      expect(other.isError).toBe(true);
      expect(textOf(other)).toMatch(/^key_reused: /);
      const keyless = await client.callTool({ name: 'probe-note', arguments: { text: 'three' } });
      expect(keyless.isError).toBe(true);
      expect(textOf(keyless)).toMatch(/^invalid_input: .*idempotency key/);
    });

    it('answers bad arguments with the executor’s own sentence, naming the field and not its value', async () => {
      const result = await client.callTool({ name: 'probe-wait', arguments: { ms: 'soon' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^invalid_input: That request was not quite right \(ms: /);
      expect(textOf(result)).not.toContain('soon');
    });

    it('refuses a verb that needs the person’s yes, saying it can only be approved in their page, and runs nothing', async () => {
      const result = await client.callTool({ name: 'probe-wipe', arguments: { idempotencyKey: `${mode}-wipe-000000001` } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe("confirmation_required: probe.wipe needs the person's yes in their Confab page; it cannot be approved over MCP.");
    });

    it('hands the client’s cancellation to the verb’s signal', async () => {
      const tag = `${mode}-cancel`;
      const stop = new AbortController();
      const call = client.callTool({ name: 'probe-wait', arguments: { ms: 10_000, tag } }, { signal: stop.signal });
      await expect.poll(() => probeSeen.waits.get(tag)?.started, { timeout: 3_000 }).toBe(true);
      stop.abort();
      await expect(call).rejects.toThrow();
      await expect.poll(() => probeSeen.waits.get(tag)?.aborted, { timeout: 3_000 }).toBe(true);
    });
  });
}

describe('who is asking over MCP', () => {
  it('refuses a request without a token with 401, a WWW-Authenticate challenge and a JSON-RPC error that says how to get one', async () => {
    const res = await fetch(confab.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32001);
    expect(body.error.message).toMatch(/settings/);
  });

  it('refuses a revoked token as it refuses a made-up one, and the SDK client says so', async () => {
    const made = await confab.tokenFor('revoker', ['probe-bot']);
    const client = await confab.client(made.token);
    expect((await client.callTool({ name: 'probe-now', arguments: {} })).isError).toBeFalsy();
    expect((await confab.asPerson('revoker', `/api/mcp/tokens/${made.id}`, { method: 'DELETE' })).status).toBe(204);
    await expect(client.callTool({ name: 'probe-now', arguments: {} })).rejects.toThrow(/not valid, or it was revoked/);
    const made2 = `confab_mcp_${'A'.repeat(43)}`;
    for (const token of [made.token, made2, 'not-even-a-token']) {
      const res = await fetch(confab.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('invalid_token');
    }
  });

  it('never shows one person’s rows to another person’s token', async () => {
    const mine = await confab.client((await confab.tokenFor('owner', ['lists-bot'])).token);
    const theirs = await confab.client((await confab.tokenFor('stranger', ['lists-bot'])).token);
    await mine.callTool({ name: 'lists-add', arguments: { list: 'secrets', items: ['the spare key is under the mat'], idempotencyKey: 'owner-secret-000001' } });
    const seen = await theirs.callTool({ name: 'lists-read', arguments: { list: 'secrets' } });
    expect(seen.structuredContent).toMatchObject({ items: [], total: 0 });
    // The same key in another person's name is theirs, not a replay of the owner's write.
    const replay = await theirs.callTool({ name: 'lists-add', arguments: { list: 'secrets', items: ['mine'], idempotencyKey: 'owner-secret-000001' } });
    expect(replay.structuredContent).not.toMatchObject({ items: ['the spare key is under the mat'] });
    const own = await mine.callTool({ name: 'lists-read', arguments: { list: 'secrets' } });
    expect(own.structuredContent).toMatchObject({ items: ['the spare key is under the mat'] });
  });

  it('offers a token only its bots’ apps’ verbs, and refuses any other as an unknown tool', async () => {
    const client = await confab.client((await confab.tokenFor('narrow', ['probe-bot'])).token);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names.some((n) => n.startsWith('lists-'))).toBe(false);
    // Work that outlives the call, and the verbs every spoken turn has, come only with a bot that names their app.
    expect(names.filter((n) => /^(tasks|clock|skills)-/.test(n))).toEqual([]);
    expect(names).toContain('probe-note');
    await expect(client.callTool({ name: 'lists-read', arguments: { list: 'shopping' } })).rejects.toThrow(/not found/);
  });
});

describe('messages the door refuses before MCP sees them', () => {
  let token: string;
  beforeAll(async () => {
    token = (await confab.tokenFor('sender', ['probe-bot'])).token;
  });

  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(confab.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });

  it('answers a message that is not JSON with a parse error, and keeps serving', async () => {
    const res = await post('{"jsonrpc":"2.0","id":1,"method":');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'The message is not valid JSON.' } });
    const client = await confab.client(token);
    expect((await client.callTool({ name: 'probe-now', arguments: {} })).isError).toBeFalsy();
  });

  it('answers a message over 1 MiB with 413 and -32600, without reading it all', async () => {
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'probe-note', arguments: { text: 'x'.repeat(1024 * 1024) } } });
    const res = await post(huge);
    expect(res.status).toBe(413);
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error).toEqual({ code: -32600, message: 'The message is over 1 MiB, the most one message may be.' });
  });
});

describe('the adapter', () => {
  it('hands every call to the executor, which logs it once as via mcp, without its arguments or result', async () => {
    const client = await confab.client((await confab.tokenFor('logged', ['probe-bot'])).token);
    const before = confab.verbLines.length;
    await client.callTool({ name: 'probe-note', arguments: { text: 'a secret note', idempotencyKey: 'logged-note-000001' } });
    await client.callTool({ name: 'probe-wipe', arguments: { idempotencyKey: 'logged-wipe-000001' } });
    const lines = confab.verbLines.slice(before);
    expect(lines.map((l) => [l.verb, l.via, l.outcome])).toEqual([
      ['probe.note', 'mcp', 'ok'],
      ['probe.wipe', 'mcp', 'confirmation_required'],
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/secret|logged-note/);
  });
});

describe('limits per token', () => {
  /** Calls one client sends at once, each with a place in flight (the cap is as wide), so only the rate refuses any. */
  const BURST = 6;
  let limited: ConfabMcp;
  let crowded: ConfabMcp;
  beforeAll(async () => {
    [limited, crowded] = await Promise.all([
      startConfabMcp({ limits: { maxCallsPerSecond: 3, maxInFlightCalls: BURST } }),
      startConfabMcp({ limits: { maxInFlightCalls: 2 } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([limited.close(), crowded.close()]);
  });

  it('refuses calls past the rate with rate_limited, before they reach the executor, and only for that token', async () => {
    const busy = await limited.client((await limited.tokenFor('quick', ['probe-bot'])).token);
    const calm = await limited.client((await limited.tokenFor('calm', ['probe-bot'])).token);
    const results = await Promise.all(Array.from({ length: BURST }, () => busy.callTool({ name: 'probe-now', arguments: {} })));
    const refused = results.filter((r) => r.isError === true);
    expect(refused.length).toBeGreaterThanOrEqual(2);
    for (const r of refused) expect(textOf(r)).toBe('rate_limited: Too many requests at once; wait a moment and try again.');
    expect((await calm.callTool({ name: 'probe-now', arguments: {} })).isError).toBeFalsy();
    expect(limited.refusals.filter((l) => l.why === 'rate_limited').length).toBe(refused.length);
  });

  it('refuses a call past the calls in flight with server_busy, and admits again once one ends', async () => {
    // On the embedded database one transaction runs at a time, so two calls that wait cannot both
    // be running a verb; the token's two slots are taken here as two admitted calls would take them.
    const made = await crowded.tokenFor('crowded', ['probe-bot']);
    const client = await crowded.client(made.token);
    const calls = crowded.api.mcpEndpoint.calls;
    const held = await Promise.all([calls.admit(hashOfToken(made.token), 'held-1'), calls.admit(hashOfToken(made.token), 'held-2')]);
    const third = await client.callTool({ name: 'probe-now', arguments: {} });
    expect(third.isError).toBe(true);
    expect(textOf(third)).toBe('server_busy: Too much is running at once; try again in a moment.');
    for (const admission of held) if (admission.ok) admission.release();
    expect((await client.callTool({ name: 'probe-now', arguments: {} })).isError).toBeFalsy();
  });
});
