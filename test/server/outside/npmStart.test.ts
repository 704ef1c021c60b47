/**
 * Outside tools as the README documents them, through the run command itself: `npm start` (which
 * builds the server when its sources are newer, then runs it with `node`), started once on a spare
 * port with `CONFAB_APPS_DIR` naming a folder outside the source tree. That folder holds an app
 * folder (plain JavaScript, `zod` from the folder's own node_modules), an OpenAPI 3.1 app (a spec
 * beside its file, with path, query and JSON body arguments, `$ref`s, an enum through `allOf`, and a
 * DELETE answering 204, against an API this test serves) and an MCP app (a real server nobody here
 * wrote, `@modelcontextprotocol/server-everything`). Each is asked through the chat door with the
 * stand-in answering; the destructive one is asked about with its question filled from the call,
 * confirmed, and done.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOutsideApps } from '../../../server/outside/loadOutside';
import type { App } from '../../../server/verbs/verb';
import { heardOf } from '../../helpers/doorHeard';
import type { Heard } from '../../helpers/doorHeard';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
/** How long building and starting may take on a busy 2-core machine, in ms. */
const START_PATIENCE_MS = 240_000;

/** The museum's rooms, as the API this test serves keeps them. */
const artworks = new Map([
  [1, { id: 1, title: 'Mona Lisa', kind: 'painting', room: 'east' }],
  [2, { id: 2, title: 'Guernica', kind: 'painting', room: 'east' }],
]);
/** What the API was asked, method and path, in order. */
const asked: string[] = [];

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Museum', version: '1.0.0' },
  paths: {
    '/artworks': {
      get: {
        operationId: 'listArtworks',
        summary: 'Lists the artworks in a room.',
        parameters: [{ name: 'room', in: 'query', required: true, schema: { type: 'string' } }],
        responses: { 200: { description: 'The artworks.', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Artwork' } } } } } },
      },
      post: {
        operationId: 'addArtwork',
        summary: 'Adds an artwork.',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewArtwork' } } } },
        responses: { 201: { description: 'Added.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Artwork' } } } } },
      },
    },
    '/artworks/{artworkId}': {
      parameters: [{ name: 'artworkId', in: 'path', required: true, schema: { type: 'integer' } }],
      get: {
        operationId: 'getArtwork',
        summary: 'Finds one artwork.',
        responses: { 200: { description: 'The artwork.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Artwork' } } } } },
      },
      delete: { operationId: 'removeArtwork', summary: 'Takes an artwork down.', responses: { 204: { description: 'Taken down.' } } },
    },
  },
  components: {
    schemas: {
      Kind: { type: 'string', enum: ['painting', 'sculpture'] },
      NewArtwork: { type: 'object', required: ['title', 'kind'], properties: { title: { type: 'string' }, kind: { allOf: [{ $ref: '#/components/schemas/Kind' }] } } },
      Artwork: {
        type: 'object',
        required: ['id', 'title'],
        properties: { title: { type: 'string' }, id: { type: 'integer' }, kind: { allOf: [{ $ref: '#/components/schemas/Kind' }] }, room: { type: 'string' } },
      },
    },
  },
};

async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  asked.push(`${request.method ?? ''} ${url.pathname}`);
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const id = Number(/^\/artworks\/(\d+)$/.exec(url.pathname)?.[1]);
  const json = (status: number, body?: unknown) => {
    response.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' }).end(body === undefined ? undefined : JSON.stringify(body));
  };
  if (request.method === 'GET' && url.pathname === '/artworks') {
    json(200, [...artworks.values()].filter((art) => art.room === url.searchParams.get('room')));
  } else if (request.method === 'POST' && url.pathname === '/artworks') {
    const added = { ...(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { title: string; kind: string }), id: artworks.size + 1, room: 'west' };
    artworks.set(added.id, added);
    json(201, added);
  } else if (request.method === 'GET' && artworks.has(id)) {
    json(200, artworks.get(id));
  } else if (request.method === 'DELETE' && artworks.delete(id)) {
    json(204);
  } else {
    json(404, { message: 'no such artwork' });
  }
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as AddressInfo;
  await new Promise((done) => probe.close(done));
  return port;
}

/** The apps folder outside the tree: an app folder, an OpenAPI app and an MCP app. */
async function writeApps(apps: string, apiUrl: string): Promise<void> {
  await mkdir(join(apps, 'abacus'), { recursive: true });
  await mkdir(join(apps, 'node_modules'), { recursive: true });
  // As a site installs it beside its own apps: the folder's `import 'zod'` resolves here.
  await symlink(join(ROOT, 'node_modules', 'zod'), join(apps, 'node_modules', 'zod'), 'dir');
  await writeFile(
    join(apps, 'abacus', 'index.js'),
    `import { z } from 'zod';
export default {
  name: 'abacus',
  description: 'Adds numbers.',
  verbs: [{
    name: 'abacus.add',
    description: 'Adds two whole numbers.',
    example: 'add 2 and 3 on the abacus',
    input: z.object({ a: z.number().int().describe('The first.'), b: z.number().int().describe('The second.') }),
    output: z.object({ sum: z.number().int() }),
    risk: 'read',
    deadlineMs: 1000,
    run: ({ a, b }) => Promise.resolve({ sum: a + b }),
    standIn: {
      phrasings: [{ pattern: /^add (\\d+) and (\\d+) on the abacus$/, input: (m) => ({ a: Number(m[1]), b: Number(m[2]) }) }],
      say: ({ sum }) => 'That makes ' + sum + '.',
    },
  }],
};
`,
  );
  await writeFile(join(apps, 'museum.json'), JSON.stringify(SPEC));
  await writeFile(
    join(apps, 'museum.md'),
    `---
openapi:
  spec: museum.json
  server: ${apiUrl}
operations: [listArtworks, getArtwork, addArtwork, removeArtwork]
examples:
  listArtworks: 'list the artworks in the {room} room'
  getArtwork: 'show artwork {artworkId}'
  addArtwork: 'hang the {body.kind} called {body.title}'
  removeArtwork: 'take down artwork {artworkId}'
private: true
---
The museum: what hangs in each room, hanging a new piece, taking one down.
`,
  );
  const everything = createRequire(join(ROOT, 'package.json')).resolve('@modelcontextprotocol/server-everything/dist/index.js');
  await writeFile(join(apps, 'echoes.md'), `---\nmcp:\n  command: node\n  args: ['${everything}', stdio]\ntools: [echo]\nexamples: { echo: 'echo {message}' }\n---\nEchoes a message back.\n`);
}

const CURATOR = `---
name: Curator
memory: none
apps: [abacus, museum, echoes]
limits: { steps: 4, spend: 1, perDay: { spend: 100 }, perMinute: { answers: 1000 } }
---
You look after the museum.`;

let folder: string;
let api: Server;
let child: ChildProcessWithoutNullStreams;
let base: string;
let cookie = '';
let grant = '';
const logs: string[] = [];

/** A request as the person's browser makes it: their cookie, and the page's origin. */
async function call(path: string, init: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
  const response = await fetch(`${base}${path}`, {
    method: init.body === undefined ? 'GET' : 'POST',
    headers: { origin: base, 'content-type': 'application/json', ...(cookie === '' ? {} : { cookie }), ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const set = response.headers.get('set-cookie');
  if (set !== null) cookie = set.split(';')[0] ?? '';
  return response;
}

/** Asks the curator `question` through the chat door and reads the whole answer. */
async function ask(question: string): Promise<Heard> {
  const response = await call('/v1/chat/completions', {
    body: { stream: true, messages: [{ role: 'user', content: question }] },
    headers: { authorization: `Bearer ${grant}`, 'x-confab-conversation': 'museum-visit', 'x-confab-time-zone': 'Europe/Madrid' },
  });
  return heardOf(response);
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'confab-npm-start-'));
  api = createServer((request, response) => void answer(request, response));
  await new Promise<void>((done) => api.listen(0, '127.0.0.1', done));
  await writeApps(join(folder, 'apps'), `http://127.0.0.1:${String((api.address() as AddressInfo).port)}`);
  await mkdir(join(folder, 'bots'));
  await writeFile(join(folder, 'bots', 'curator.md'), CURATOR);
  // A page newer than its sources, so `npm start` builds the server only.
  await mkdir(join(folder, 'dist'));
  await writeFile(join(folder, 'dist', 'index.html'), '<!doctype html><title>Confab</title>');
  const port = await freePort();
  // Nothing of this machine's environment but what npm needs: no provider key, so the stand-in answers.
  child = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? folder,
      PORT: String(port),
      HOST: '127.0.0.1',
      CONFAB_DATA_DIR: join(folder, 'data'),
      CONFAB_DIST: join(folder, 'dist'),
      CONFAB_BOTS_DIR: join(folder, 'bots'),
      CONFAB_APPS_DIR: join(folder, 'apps'),
      CONFAB_EMBEDDER: 'hash',
      CONFAB_STOP_GRACE_S: '0',
    },
  });
  base = await new Promise<string>((listening, failed) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      logs.push(...text.split('\n').filter((line) => line !== ''));
      const heard = logs.map((line) => /"event":"server.listening","url":"http:\/\/localhost:(\d+)\/"/.exec(line)).find((match) => match !== null);
      if (heard) listening(`http://127.0.0.1:${heard[1] ?? ''}`);
    });
    child.on('exit', (code) => {
      failed(new Error(`npm start exited (${String(code)}) before listening:\n${logs.join('\n')}`));
    });
  });
  ({ grant } = (await (await call('/api/start', { body: { bot: 'curator' } })).json()) as { grant: string });
}, START_PATIENCE_MS);

afterAll(async () => {
  if (child.pid !== undefined && child.exitCode === null) {
    const exited = new Promise((done) => child.on('exit', done));
    process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
  await new Promise((done) => api.close(done));
  await rm(folder, { recursive: true, force: true });
});

describe('npm start with CONFAB_APPS_DIR', () => {
  it('lists the apps of the folder outside the tree, each verb with the input schema the model is shown, at most twelve in scope', async () => {
    const verbs = (await (await call('/api/bots/curator/verbs')).json()) as { max: number; inScope: { verb: string; inputSchema: Record<string, unknown> }[]; leftOut: { verb: string; why: string }[] };
    expect(verbs.max).toBe(12);
    expect(verbs.inScope.length).toBeLessThanOrEqual(12);
    // Seven every bot has, and the curator's three apps' six: the cap leaves the last out, and says so.
    expect(verbs.leftOut).toContainEqual({ verb: 'echoes.echo', why: 'cap' });
    const schemaOf = (name: string) => verbs.inScope.find((scoped) => scoped.verb === name)?.inputSchema;
    expect(schemaOf('abacus.add')).toMatchObject({ type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] });
    expect(schemaOf('museum.add_artwork')).toMatchObject({
      properties: { body: { required: ['title', 'kind'], properties: { kind: { allOf: [{ type: 'string', enum: ['painting', 'sculpture'] }] } } } },
      required: ['body'],
    });
    expect(schemaOf('museum.list_artworks')).toMatchObject({ properties: { room: { type: 'string' } }, required: ['room'] });
    // A line the person might say brings its app in first.
    const echoing = (await (await call(`/api/bots/curator/verbs?said=${encodeURIComponent('echo good morning')}`)).json()) as { inScope: { verb: string; inputSchema: unknown }[] };
    expect(echoing.inScope.find((scoped) => scoped.verb === 'echoes.echo')?.inputSchema).toMatchObject({ properties: { message: { type: 'string' } } });
  });

  it('asks the app folder and the MCP server through the chat door, and says what each answered', async () => {
    expect((await ask('Add 2 and 3 on the abacus.')).text).toBe('That makes 5.');
    expect((await ask('Echo good morning.')).text).toBe('echoes says: Echo: good morning');
  });

  it('reads, looks up and writes through the OpenAPI app — query, path and JSON body — and says each result from its fields', async () => {
    expect((await ask('List the artworks in the east room.')).text).toBe('museum found 2: Mona Lisa and Guernica.');
    expect((await ask('Show artwork 2.')).text).toBe('museum says: Guernica, id 2, kind painting.');
    expect((await ask('Hang the sculpture called The Thinker.')).text).toBe('museum says: the thinker, kind sculpture, id 3.');
    // The enum through allOf: a kind the spec does not have is refused before the API is asked.
    const posts = asked.filter((line) => line === 'POST /artworks').length;
    expect((await ask('Hang the vase called Amphora.')).text).not.toMatch(/museum says/);
    expect(asked.filter((line) => line === 'POST /artworks')).toHaveLength(posts);
  });

  it('asks before the DELETE with its question filled from the call, and does it once confirmed', async () => {
    const heard = await ask('Take down artwork 2.');
    const confirm = heard.events.find((event) => event.event === 'confab.confirm');
    expect(confirm?.data).toMatchObject({ verb: 'museum.remove_artwork', question: 'Shall I take down artwork 2? Say yes or no.' });
    expect(heard.text).toBe('Shall I take down artwork 2? Say yes or no.');
    expect(asked).not.toContain('DELETE /artworks/2');
    const approved = (await (await call(`/api/actions/${String(confirm?.data.id)}/approve`, { body: {} })).json()) as { outcome: string; sentence: string };
    expect(approved).toEqual({ outcome: 'done', sentence: 'Done.' });
    expect(asked.filter((line) => line === 'DELETE /artworks/2')).toHaveLength(1);
    expect((await ask('List the artworks in the east room.')).text).toBe('museum found one: Mona Lisa.');
  });
});

describe('the build npm start runs', () => {
  it('carries an app file written into server/apps/ as the README says, and the spec beside it, so the compiled server finds it', async () => {
    // A copy of the sources outside the tree, so the app file is never written into the real one.
    const copy = join(folder, 'copy');
    for (const part of ['server', 'common']) await cp(join(ROOT, part), join(copy, part), { recursive: true });
    await cp(join(ROOT, 'package.json'), join(copy, 'package.json'));
    await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
    await writeFile(join(copy, 'server', 'apps', 'museum.json'), JSON.stringify(SPEC));
    await writeFile(join(copy, 'server', 'apps', 'museum.md'), '---\nopenapi: { spec: museum.json, server: "https://museum.example" }\noperations: [listArtworks]\n---\nThe museum.\n');
    const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-server.mjs')], { cwd: copy, encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);
    const apps = join(copy, 'build', 'server', 'apps');
    expect(existsSync(join(apps, 'museum.json'))).toBe(true);
    const opened: string[] = [];
    const open = (name: string) => {
      opened.push(name);
      return Promise.resolve<App>({ name, description: 'Outside.', verbs: [] });
    };
    await loadOutsideApps(apps, { env: {}, appsDir: apps, log: () => undefined }, { mcp: (file) => open(file.name), openapi: (file) => open(file.name) });
    expect(opened).toEqual(['museum']);
  }, START_PATIENCE_MS);
});
