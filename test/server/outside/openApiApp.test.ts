/**
 * An OpenAPI spec as an app (openApiApp.ts), against real public specs nobody here wrote — the
 * Swagger Petstore 3 document and APIs.guru's own API (`test/fixtures/openapi/`) — and a small local
 * server answering their operations, through the one executor on a real PGlite: GET read, POST
 * written once on a retried turn, DELETE asked first, a wrong argument refused naming the field, the
 * site's key from the environment, a call cut off at its deadline aborted at the server; and a spec,
 * an operation, a server or a secret that is wrong refusing the start with a sentence.
 */
import { randomUUID } from 'node:crypto';
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/database';
import { hashEmbedder } from '../../../server/memory/embed';
import { parseAppFile } from '../../../server/outside/appFile';
import type { OpenApiAppFile } from '../../../server/outside/appFile';
import type { OutsideDeps } from '../../../server/outside/loadOutside';
import { PrivateAddressError } from '../../../server/outside/address';
import { openApiApp } from '../../../server/outside/openApiApp';
import { OpenApiCallError } from '../../../server/outside/openApiCall';
import { narrationOf as fill } from '../../../server/outside/outsideVerb';
import { createExecutor } from '../../../server/verbs/executor';
import { testGate } from '../../helpers/testGate';
import type { Executor, Outcome } from '../../../server/verbs/executor';
import { createRegistry } from '../../../server/verbs/registry';
import type { App, Caller, Verb } from '../../../server/verbs/verb';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/openapi');
const KEY = 'petstore-test-key';

/** A promise, and what settles it. */
function signalled(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** What the local server was asked, and a way to learn that a request was cut off. */
const seen = { posts: 0, deletes: 0, apiKeys: [] as (string | undefined)[], idempotencyKeys: [] as (string | undefined)[], cutOff: signalled() };

const pet = (id: number, status = 'available') => ({ id, name: id === 7 ? 'Rex' : `Pet ${id}`, photoUrls: [], status, category: { id: 1, name: 'Dogs' } });

/** Answers the Petstore operations the app allows (under /api/v3) and APIs.guru's getAPI (under /v2). */
async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
  seen.apiKeys.push(request.headers.api_key as string | undefined);
  const url = new URL(request.url ?? '/', 'http://localhost');
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const petId = /^\/api\/v3\/pet\/(\d+)$/.exec(url.pathname)?.[1];
  const api = /^\/v2\/specs\/([^/]+)\/([^/]+)\.json$/.exec(url.pathname);
  const [status, body] = ((): [number, unknown] | undefined => {
    if (request.method === 'GET' && url.pathname === '/api/v3/pet/findByStatus') return [200, [pet(1, url.searchParams.get('status') ?? 'available'), pet(2)]];
    // Never answers: the caller's deadline must cut it off.
    if (request.method === 'GET' && petId === '999') return undefined;
    if (request.method === 'GET' && petId === '404') return [404, { message: 'Pet 404 is not here; secret-detail' }];
    if (request.method === 'GET' && petId !== undefined) return [200, pet(Number(petId))];
    if (request.method === 'POST' && url.pathname === '/api/v3/pet') {
      seen.posts += 1;
      seen.idempotencyKeys.push(request.headers['idempotency-key'] as string | undefined);
      return [200, { ...(JSON.parse(Buffer.concat(chunks).toString('utf8')) as object), id: 10 }];
    }
    if (request.method === 'DELETE' && petId !== undefined) {
      seen.deletes += 1;
      return [200, undefined];
    }
    if (request.method === 'GET' && api !== null) {
      const [provider, name] = [decodeURIComponent(api[1] ?? ''), decodeURIComponent(api[2] ?? '')];
      const version = { added: '2015-02-22T20:00:45.000Z', updated: '2016-06-17T00:21:44.000Z', info: { title: provider }, openapiVer: '3.0.0', swaggerUrl: 'https://x/swagger.json', swaggerYamlUrl: 'https://x/swagger.yaml' };
      return [200, { added: version.added, preferred: name, versions: { [name]: version } }];
    }
    return [404, { message: 'no such route' }];
  })() ?? [0, undefined];
  if (status === 0) {
    response.on('close', () => {
      seen.cutOff.resolve();
    });
    return;
  }
  response.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' }).end(body === undefined ? undefined : JSON.stringify(body));
}

function outcomeOf(outcome: Outcome): unknown {
  if (!outcome.ok) throw new Error(`Expected success, got ${outcome.error.code}.`);
  return outcome.output;
}

function errorOf(outcome: Outcome) {
  if (outcome.ok) throw new Error('Expected a failure.');
  return outcome.error;
}

describe('an OpenAPI spec as an app', { timeout: DB_TEST_MS }, () => {
  let server: Server;
  let origin: string;
  let db: Database;
  let executor: Executor;
  let petstore: App;
  let caller: Caller;
  const deps = (env: Record<string, string> = { PETSTORE_KEY: KEY }): OutsideDeps => ({ env, appsDir: FIXTURES, log: () => undefined });
  const petstoreFile = (more = '', server = `${origin}/api/v3`, name = 'shop.md'): OpenApiAppFile =>
    parseAppFile(
      name,
      `---
openapi:
  spec: petstore.yaml
  server: ${server}
  headers: { api_key: env:PETSTORE_KEY }
operations: [getPetById, findPetsByStatus, addPet, deletePet]
examples: { getPetById: 'find pet 7' }
narrate: { after: [addPet], with: findPetsByStatus, say: 'There are {count} pets available now.' }
private: true
${more}
---
The Swagger pet store: find, add and remove pets.
`,
    ) as OpenApiAppFile;
  const verbOf = (app: App, name: string): Verb => {
    const verb = app.verbs.find((each) => each.name === name);
    if (verb === undefined) throw new Error(`No verb ${name}.`);
    return verb;
  };

  beforeAll(async () => {
    server = createServer((request, response) => void answer(request, response));
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    petstore = await openApiApp(petstoreFile(), deps());
    const slow = await openApiApp(petstoreFile('deadline: 0.2', `${origin}/api/v3`, 'slow.md'), deps());
    db = await openMemoryDatabase();
    executor = createExecutor({ gate: testGate(db), registry: createRegistry([petstore, slow]), db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
  }, OPENING_MS);

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((closed) => server.close(closed));
    await db.close();
  });

  beforeEach(() => {
    Object.assign(seen, { posts: 0, deletes: 0, apiKeys: [], cutOff: signalled() });
    caller = { person: somebody('ana'), bot: 'demo', via: 'model', timeZone: 'UTC' };
  });

  it('makes each allowed Petstore operation a verb: its parameters, body and answer as schemas, its risk from the method', () => {
    expect(petstore.verbs.map((verb) => [verb.name, verb.risk])).toEqual([
      ['shop.get_pet_by_id', 'read'],
      ['shop.find_pets_by_status', 'read'],
      ['shop.add_pet', 'write'],
      ['shop.delete_pet', 'destructive'],
    ]);
    const get = verbOf(petstore, 'shop.get_pet_by_id');
    expect(get.description).toBe('Find pet by ID. Returns a single pet.');
    expect(get.jsonSchema?.input).toEqual({
      type: 'object',
      properties: { petId: { type: 'integer', format: 'int64', description: 'ID of pet to return' } },
      required: ['petId'],
      additionalProperties: false,
    });
    // The answer is the Pet itself: its category and tags resolved from components, OpenAPI's xml gone, example as examples.
    expect(get.jsonSchema?.output).toMatchObject({
      type: 'object',
      required: ['name', 'photoUrls'],
      properties: { id: { type: 'integer', examples: [10] }, category: { type: 'object', properties: { name: { type: 'string', examples: ['Dogs'] } } }, tags: { items: { properties: { name: { type: 'string' } } } } },
    });
    expect(JSON.stringify(get.jsonSchema)).not.toMatch(/"\$ref"|"xml"|"x-swagger-router-model"/);
    const add = verbOf(petstore, 'shop.add_pet');
    expect(add.jsonSchema?.input).toMatchObject({ required: ['body'], properties: { body: { required: ['name', 'photoUrls'], description: 'Create a new pet in the store' } } });
    // deletePet's api_key header is the file's to send, not the model's; its 200 has no body: `{ status, body }`.
    const remove = verbOf(petstore, 'shop.delete_pet');
    expect(Object.keys(remove.jsonSchema?.input.properties as object)).toEqual(['petId']);
    expect(remove.jsonSchema?.output).toMatchObject({ properties: { status: { type: 'integer' } }, required: ['status'] });
    expect(petstore.outside).toMatchObject({ kind: 'openapi', file: 'shop.md' });
    expect(petstore.outside?.status()).toEqual({ up: true });
  });

  it('reads a pet with GET, the site’s key from the environment reaching the server', async () => {
    const outcome = await executor.execute({ verb: 'shop.get_pet_by_id', input: { petId: 7 }, caller });
    expect(outcomeOf(outcome)).toMatchObject({ id: 7, name: 'Rex', status: 'available' });
    const list = await executor.execute({ verb: 'shop.find_pets_by_status', input: { status: 'sold' }, caller });
    expect(outcomeOf(list)).toMatchObject({ status: 200, body: [{ id: 1, status: 'sold' }, { id: 2 }] });
    expect(seen.apiKeys).toEqual([KEY, KEY]);
  });

  it('adds a pet with POST once, however often its turn is retried, sending the write’s key as Idempotency-Key', async () => {
    const key = `key-${randomUUID()}`;
    const call = { verb: 'shop.add_pet', input: { body: { name: 'Tom', photoUrls: [] } }, caller, idempotencyKey: key };
    const first = await executor.execute(call);
    const retry = await executor.execute(call);
    expect(outcomeOf(first)).toEqual({ id: 10, name: 'Tom', photoUrls: [] });
    expect(outcomeOf(retry)).toEqual(outcomeOf(first));
    expect(retry.ok && retry.replayed).toBe(true);
    expect(seen.posts).toBe(1);
    expect(seen.idempotencyKeys).toEqual([key]);
  });

  it('asks before a DELETE, and does not call without the person’s yes', async () => {
    expect(verbOf(petstore, 'shop.delete_pet').confirm).toBe(true);
    const outcome = await executor.execute({ verb: 'shop.delete_pet', input: { petId: 7 }, caller, idempotencyKey: `key-${randomUUID()}` });
    expect(errorOf(outcome).code).toBe('confirmation_required');
    expect(seen.deletes).toBe(0);
  });

  it('refuses a wrong argument, naming the field, before anything is sent', async () => {
    const outcome = await executor.execute({ verb: 'shop.get_pet_by_id', input: { petId: 'seven' }, caller });
    expect(errorOf(outcome)).toMatchObject({ code: 'invalid_input', message: 'That request was not quite right (petId: must be integer), so nothing was done.' });
    const nameless = await executor.execute({ verb: 'shop.add_pet', input: { body: { photoUrls: [] } }, caller, idempotencyKey: `key-${randomUUID()}` });
    expect(errorOf(nameless).message).toMatch(/\(body\.name: is required\)/);
    expect(seen.apiKeys).toEqual([]);
  });

  it('fails a call the API answers with an error status, naming the status and never its body', async () => {
    const error = errorOf(await executor.execute({ verb: 'shop.get_pet_by_id', input: { petId: 404 }, caller }));
    expect(error.code).toBe('execution_failed');
    expect(error.cause).toBeInstanceOf(OpenApiCallError);
    expect((error.cause as Error).message).toBe('getPetById answered HTTP 404.');
    expect((error.cause as Error).message).not.toMatch(/secret-detail/);
  });

  it('cuts off a call at the file’s deadline, aborting the request at the server', async () => {
    const outcome = await executor.execute({ verb: 'slow.get_pet_by_id', input: { petId: 999 }, caller });
    expect(errorOf(outcome).code).toBe('timed_out');
    await seen.cutOff.promise;
  });

  it('narrates a change with the file’s read: {count} is how many the list has', async () => {
    const said = await executor.narrate({ verb: 'shop.add_pet', input: {}, output: {} }, caller);
    expect(said).toEqual(['There are 2 pets available now.']);
    expect(fill('{name} is {status}.', { name: 'Rex', status: 'sold' })).toBe('Rex is sold.');
    expect(fill('{owner.name} has it.', { name: 'Rex' })).toBeUndefined();
  });

  it('resolves APIs.guru’s $refs across components (parameters, and schemas within schemas) into schemas that check a real answer', async () => {
    const file = parseAppFile('guru.md', `---\nopenapi: { spec: apis-guru.yaml, server: '${origin}/v2' }\noperations: [getAPI, getMetrics]\nprivate: true\n---\nThe APIs.guru directory.\n`) as OpenApiAppFile;
    const guru = await openApiApp(file, deps());
    const get = verbOf(guru, 'guru.get_api');
    expect(get.jsonSchema?.input).toMatchObject({
      properties: { provider: { type: 'string', minLength: 1, maxLength: 255, examples: ['apis.guru'] }, api: { type: 'string', examples: ['2.1.0'] } },
      required: ['provider', 'api'],
    });
    expect(get.jsonSchema?.output).toMatchObject({
      required: ['added', 'preferred', 'versions'],
      properties: { versions: { additionalProperties: { additionalProperties: false, required: ['added', 'updated', 'swaggerUrl', 'swaggerYamlUrl', 'info', 'openapiVer'] } } },
    });
    expect(JSON.stringify(guru.verbs.map((verb) => verb.jsonSchema))).not.toContain('$ref');
    const local = createExecutor({ gate: testGate(db), registry: createRegistry([guru]), db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
    const outcome = await local.execute({ verb: 'guru.get_api', input: { provider: 'apis.guru', api: '2.2.0' }, caller });
    expect(outcomeOf(outcome)).toMatchObject({ preferred: '2.2.0', versions: { '2.2.0': { info: { title: 'apis.guru' } } } });
    expect(get.input.safeParse({ provider: '', api: '2.2.0' }).error?.issues[0]).toMatchObject({ path: ['provider'] });
    // A path argument may not climb out of the operation's own path to another endpoint.
    const climbing = await local.execute({ verb: 'guru.get_api', input: { provider: '..', api: 'metrics' }, caller });
    expect(errorOf(climbing)).toMatchObject({ code: 'invalid_input', message: 'The provider cannot be a dot or two dots; give the one it names.' });
  });

  it('reads a spec from an https:// URL through its fetch, and calls the file’s server, never the spec’s own', async () => {
    const text = await readFile(join(FIXTURES, 'petstore.yaml'), 'utf8');
    const asked: string[] = [];
    const fetchSpec: typeof fetch = (url) => {
      const said = url instanceof Request ? url.url : url.toString();
      asked.push(said);
      return Promise.resolve(said.startsWith('https://specs.example/') ? new Response(text, { headers: { 'content-type': 'application/yaml' } }) : Response.json(pet(7)));
    };
    const publicAddress = () => Promise.resolve(['93.184.216.34']);
    const file = parseAppFile('store.md', '---\nopenapi: { spec: https://specs.example/petstore.yaml, server: "https://pets.example/v3" }\noperations: [getPetById]\n---\nThe pet store.\n') as OpenApiAppFile;
    const app = await openApiApp(file, { ...deps(), fetch: fetchSpec, lookup: publicAddress });
    expect(app.verbs.map((verb) => verb.name)).toEqual(['store.get_pet_by_id']);
    const local = createExecutor({ gate: testGate(db), registry: createRegistry([app]), db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
    expect(outcomeOf(await local.execute({ verb: 'store.get_pet_by_id', input: { petId: 7 }, caller }))).toMatchObject({ id: 7 });
    // petstore.yaml names its own server; the call went where the file says.
    expect(asked).toEqual(['https://specs.example/petstore.yaml', 'https://pets.example/v3/pet/7']);
  });

  it('refuses a spec that redirects, and a call to a private address unless the file says private: true', async () => {
    const moved: typeof fetch = () => Promise.resolve(new Response(null, { status: 302, headers: { location: 'http://elsewhere.example/petstore.yaml' } }));
    const publicAddress = () => Promise.resolve(['93.184.216.34']);
    const redirected = parseAppFile('store.md', '---\nopenapi: { spec: https://specs.example/petstore.yaml, server: "https://pets.example/v3" }\noperations: [getPetById]\n---\nThe pet store.\n') as OpenApiAppFile;
    await expect(openApiApp(redirected, { ...deps(), fetch: moved, lookup: publicAddress })).rejects.toThrow(/openapi\.spec .* answered with a redirect \(HTTP 302\), which Confab does not follow/);

    let called = 0;
    const counting: typeof fetch = () => {
      called += 1;
      return Promise.resolve(Response.json(pet(7)));
    };
    const inside = parseAppFile('inside.md', '---\nopenapi: { spec: petstore.yaml, server: "https://pets.internal/v3" }\noperations: [getPetById]\n---\nThe pet store.\n') as OpenApiAppFile;
    for (const address of ['10.0.0.5', '169.254.169.254', '127.0.0.1', '::1', 'fd00::1', '::ffff:192.168.1.1']) {
      const app = await openApiApp(inside, { ...deps(), fetch: counting, lookup: () => Promise.resolve([address]) });
      const local = createExecutor({ gate: testGate(db), registry: createRegistry([app]), db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
      const error = errorOf(await local.execute({ verb: 'inside.get_pet_by_id', input: { petId: 7 }, caller }));
      expect([error.code, error.sentence], address).toEqual(['execution_failed', 'Something went wrong doing that, so it was not done.']);
      expect(error.cause, address).toBeInstanceOf(PrivateAddressError);
    }
    expect(called).toBe(0);
    const allowed = parseAppFile('inside.md', '---\nopenapi: { spec: petstore.yaml, server: "https://pets.internal/v3" }\noperations: [getPetById]\nprivate: true\n---\nThe pet store.\n') as OpenApiAppFile;
    const app = await openApiApp(allowed, { ...deps(), fetch: counting, lookup: () => Promise.resolve(['10.0.0.5']) });
    const local = createExecutor({ gate: testGate(db), registry: createRegistry([app]), db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
    expect(outcomeOf(await local.execute({ verb: 'inside.get_pet_by_id', input: { petId: 7 }, caller }))).toMatchObject({ id: 7 });
    expect(called).toBe(1);
  });
});

describe('an OpenAPI app that cannot start', () => {
  let dir: string;
  const deps = (env: Record<string, string> = {}): OutsideDeps => ({ env, appsDir: dir, log: () => undefined });
  const fileOf = (spec: string, more = 'operations: [getPetById]') => parseAppFile('shop.md', `---\nopenapi: { spec: '${spec}', server: "https://pets.example/api/v3" }\n${more}\n---\nThe pet store.\n`) as OpenApiAppFile;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'confab-openapi-'));
    const petstore = await readFile(join(FIXTURES, 'petstore.yaml'), 'utf8');
    await writeFile(join(dir, 'serverless.yaml'), petstore.replace(/^servers:\n {2}- url: .*\n/m, ''));
    await writeFile(join(dir, 'relative.yaml'), petstore.replace(/^servers:\n {2}- url: .*\n/m, 'servers:\n  - url: /api/v3\n'));
    await writeFile(join(dir, 'petstore.yaml'), petstore);
    await writeFile(join(dir, 'unparsed.yaml'), 'openapi: 3.0.3\ninfo: { title: [unclosed\n');
    await writeFile(join(dir, 'invalid.yaml'), 'openapi: 3.0.3\ninfo: { title: Broken, version: "1" }\npaths:\n  /pets:\n    get:\n      operationId: listPets\n      responses: 7\n');
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a spec that does not parse or does not validate, naming the file, the field and the parser’s reason', async () => {
    await expect(openApiApp(fileOf('unparsed.yaml'), deps())).rejects.toThrow(/^server\/apps\/shop\.md: openapi\.spec \(unparsed\.yaml\) is not a valid OpenAPI document: .*YAML/i);
    await expect(openApiApp(fileOf('invalid.yaml'), deps())).rejects.toThrow(/^server\/apps\/shop\.md: openapi\.spec \(invalid\.yaml\) is not a valid OpenAPI document: .*responses/);
    await expect(openApiApp(fileOf('missing.yaml'), deps())).rejects.toThrow(/^server\/apps\/shop\.md: openapi\.spec \(missing\.yaml\) is not a valid OpenAPI document: /);
  });

  it('refuses an operation the spec does not have, naming it', async () => {
    await expect(openApiApp(fileOf('petstore.yaml', 'operations: [getPetById, getPetByName]'), deps())).rejects.toThrow(
      /^server\/apps\/shop\.md: operations names "getPetByName", which is not an operationId in petstore\.yaml \(it has: updatePet, addPet, /,
    );
  });

  it('takes where to call from the file alone: a spec with no server, or a relative one, is fine', async () => {
    expect((await openApiApp(fileOf('serverless.yaml'), deps())).verbs).toHaveLength(1);
    expect((await openApiApp(fileOf('relative.yaml'), deps())).verbs).toHaveLength(1);
    const given = parseAppFile('shop.md', '---\nopenapi: { spec: serverless.yaml, server: "https://pets.example/api/v3" }\noperations: [getPetById]\n---\nThe pet store.\n') as OpenApiAppFile;
    expect((await openApiApp(given, deps())).verbs).toHaveLength(1);
  });

  it('refuses to start when the environment variable a header names is not set', async () => {
    const keyed = parseAppFile('shop.md', '---\nopenapi: { spec: petstore.yaml, server: "https://pets.example", headers: { api_key: env:PETSTORE_KEY } }\noperations: [getPetById]\n---\nThe pet store.\n') as OpenApiAppFile;
    await expect(openApiApp(keyed, deps())).rejects.toThrow('server/apps/shop.md: openapi.headers.api_key names the environment variable PETSTORE_KEY, which is not set; set it where the server starts.');
  });

  it('refuses a narrator that writes, or that needs arguments', async () => {
    const narrating = (read: string) => fileOf('petstore.yaml', `operations: [getPetById, addPet]\nnarrate: { after: [addPet], with: ${read}, say: 'Done.' }`);
    await expect(openApiApp(narrating('addPet'), deps())).rejects.toThrow(/narrate\.with names "addPet", which changes something/);
    await expect(openApiApp(narrating('getPetById'), deps())).rejects.toThrow(/narrate\.with names "getPetById", which needs arguments/);
  });

  it('reads a 3.1 spec whose schema contains itself, checking three levels of it', async () => {
    await writeFile(
      join(dir, 'tree.yaml'),
      `openapi: 3.1.0
info: { title: Tree, version: "1" }
servers: [{ url: "https://tree.example" }]
paths:
  /categories/{id}:
    get:
      operationId: getCategory
      parameters: [{ name: id, in: path, required: true, schema: { type: [integer, string] } }]
      responses:
        "200":
          description: A category and the ones below it.
          content: { application/json: { schema: { $ref: "#/components/schemas/Category" } } }
components:
  schemas:
    Category:
      type: object
      required: [name]
      properties:
        name: { type: string }
        note: { type: [string, "null"] }
        children: { type: array, items: { $ref: "#/components/schemas/Category" } }
`,
    );
    const app = await openApiApp(fileOf('tree.yaml', 'operations: [getCategory]'), deps());
    const [verb] = app.verbs;
    expect(verb?.jsonSchema?.input.properties).toEqual({ id: { type: ['integer', 'string'] } });
    const level = (depth: number): object => (depth === 0 ? { anything: true } : { name: `level ${depth}`, note: null, children: [level(depth - 1)] });
    // Three levels are checked; what is below them is taken as it comes.
    expect(verb?.output.safeParse(level(3)).success).toBe(true);
    expect(verb?.output.safeParse({ name: 'a', children: [{ name: 'b', children: [{ note: 'no name' }] }] }).success).toBe(false);
  });
});
