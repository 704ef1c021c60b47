import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { EMBEDDING_WIDTH, EmbedderError, endpointEmbedder, hashEmbedder } from '../../../server/memory/embed';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * (b[i] ?? 0), 0);

describe('the hash embedder', () => {
  it('gives a unit vector 384 wide, the same for the same text', async () => {
    const a = await hashEmbedder.embed('My sister Ana lives in Porto.');
    expect(a).toHaveLength(EMBEDDING_WIDTH);
    expect(cosine(a, a)).toBeCloseTo(1, 5);
    expect(Array.from(await hashEmbedder.embed('My sister Ana lives in Porto.'))).toEqual(Array.from(a));
  });

  it('puts remarks that share words nearer than remarks that do not', async () => {
    const said = await hashEmbedder.embed('My sister Ana lives in Porto.');
    const related = await hashEmbedder.embed('When is Ana coming back from Porto?');
    const unrelated = await hashEmbedder.embed('The weather is cold today.');
    expect(cosine(said, related)).toBeGreaterThan(cosine(said, unrelated) + 0.2);
  });

  it('ignores case, accents and punctuation', async () => {
    expect(cosine(await hashEmbedder.embed('Café, Ana!'), await hashEmbedder.embed('cafe ana'))).toBeCloseTo(1, 5);
  });

  it('gives a zero vector for nothing to embed', async () => {
    expect((await hashEmbedder.embed(' … ')).every((v) => v === 0)).toBe(true);
  });
});

describe('the endpoint embedder', () => {
  async function upstream(reply: (body: string) => [number, unknown]) {
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        bodies.push(body);
        const [status, json] = reply(body);
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies, close: () => server.close() };
  }

  it('asks for 384 dimensions and returns them', async () => {
    const up = await upstream(() => [200, { data: [{ embedding: Array.from({ length: 384 }, (_, i) => i / 384) }] }]);
    const embedder = endpointEmbedder({ baseUrl: up.url, apiKey: 'k', model: 'text-embedding-3-small' });
    const vector = await embedder.embed('hello');
    expect(vector[383]).toBeCloseTo(383 / 384);
    expect(JSON.parse(up.bodies[0] ?? '{}')).toEqual({ model: 'text-embedding-3-small', input: 'hello', dimensions: 384 });
    expect(embedder.name).toBe('endpoint:text-embedding-3-small');
    up.close();
  });

  it('refuses a vector of the wrong width and an error status, clearly', async () => {
    const wide = await upstream(() => [200, { data: [{ embedding: [1, 2, 3] }] }]);
    await expect(endpointEmbedder({ baseUrl: wide.url, apiKey: 'k', model: 'm' }).embed('x')).rejects.toThrow(/did not return 384 numbers/);
    wide.close();
    const failing = await upstream(() => [401, { error: 'bad key' }]);
    await expect(endpointEmbedder({ baseUrl: failing.url, apiKey: 'k', model: 'm' }).embed('x')).rejects.toThrow(EmbedderError);
    failing.close();
    await expect(endpointEmbedder({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k', model: 'm' }).embed('x')).rejects.toThrow(/could not be reached/);
  });
});
