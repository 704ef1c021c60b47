/**
 * Outside app files (`server/apps/<app>.md`): what a good one reads as, and a sentence naming the
 * file and the field for each way one is wrong — and secrets only ever from the environment.
 */
import { describe, expect, it } from 'vitest';
import { AppFileError, OUTSIDE_DEADLINE_MS, parseAppFile, secretValue, secretValues } from '../../../server/outside/appFile';

const MCP = `---
mcp:
  command: npx
  args: [mcp-server-everything, stdio]
  env: { EVERYTHING_KEY: env:EVERYTHING_KEY, MODE: quiet }
tools: [echo, add]
examples: { echo: echo hello }
confirm: [add]
reads: [echo]
deadline: 5
narrate: { after: [add], with: echo, say: 'It says {text}.' }
---
The everything server's echo and sums.
`;

const OPENAPI = `---
openapi:
  spec: petstore.json
  server: http://127.0.0.1:9999/api/v3
  headers: { api_key: env:PETSTORE_KEY, Accept: application/json }
operations: [getPetById, addPet, deletePet]
private: true
---
The pet shop.
`;

function refusal(text: string, file = 'shop.md'): string {
  try {
    parseAppFile(file, text);
  } catch (error) {
    if (error instanceof AppFileError) return error.message;
    throw error;
  }
  throw new Error('It was not refused.');
}

const withFields = (fields: string) => `---\n${fields}\n---\nWhat it is for.\n`;

describe('an outside app file', () => {
  it('reads an MCP server started over stdio: the command, its arguments and environment, the allow-list and its settings', () => {
    expect(parseAppFile('everything.md', MCP)).toEqual({
      kind: 'mcp',
      name: 'everything',
      file: 'everything.md',
      description: "The everything server's echo and sums.",
      mcp: { command: 'npx', args: [{ text: 'mcp-server-everything' }, { text: 'stdio' }], env: { EVERYTHING_KEY: { env: 'EVERYTHING_KEY' }, MODE: { text: 'quiet' } }, headers: {} },
      allowed: ['echo', 'add'],
      examples: { echo: 'echo hello' },
      confirm: ['add'],
      reads: ['echo'],
      private: false,
      pricePerCallUsd: 0,
      deadlineMs: 5000,
      narrate: { after: ['add'], with: 'echo', say: 'It says {text}.' },
    });
  });

  it('reads an MCP server at a URL, and an OpenAPI spec, with a ten-second deadline by default', () => {
    const remote = parseAppFile('calendar.md', withFields('mcp:\n  url: https://mcp.example.com/mcp\n  headers: { Authorization: env:CALENDAR_TOKEN }\ntools: [add_event]'));
    expect(remote).toMatchObject({ kind: 'mcp', mcp: { url: { text: 'https://mcp.example.com/mcp' }, headers: { Authorization: { env: 'CALENDAR_TOKEN' } } }, deadlineMs: OUTSIDE_DEADLINE_MS, reads: [], private: false });
    expect(parseAppFile('petstore.md', OPENAPI)).toMatchObject({
      kind: 'openapi',
      openapi: { spec: 'petstore.json', server: 'http://127.0.0.1:9999/api/v3', headers: { api_key: { env: 'PETSTORE_KEY' }, Accept: { text: 'application/json' } } },
      allowed: ['getPetById', 'addPet', 'deletePet'],
      private: true,
    });
  });

  it.each([
    ['no front matter', 'Just words.', 'server/apps/shop.md: front matter is missing'],
    ['no description', '---\nmcp: { command: x }\ntools: [a]\n---\n', 'server/apps/shop.md: description (the text after the front matter) is empty'],
    ['both kinds', withFields('mcp: { command: x }\nopenapi: { spec: a.json }\ntools: [a]'), 'must name exactly one of `mcp:`'],
    ['no allow-list', withFields('mcp: { command: x }'), 'server/apps/shop.md: tools is missing'],
    ['the other kind’s list', withFields('openapi: { spec: a.json }\ntools: [a]'), 'server/apps/shop.md: tools is for an MCP server'],
    ['a command and a url', withFields('mcp: { command: x, url: "https://a" }\ntools: [a]'), 'must give either `command`'],
    ['an unknown field', withFields('mcp: { command: x, port: 3 }\ntools: [a]'), 'server/apps/shop.md: mcp.port is not a field here'],
    ['a spec over plain http', withFields('openapi: { spec: "http://example.com/a.json" }\noperations: [a]'), 'must be https://'],
    ['an example of a tool not offered', withFields('mcp: { command: x }\ntools: [a]\nexamples: { b: say b }'), 'server/apps/shop.md: examples.b names a tool not in `tools`'],
    ['a deadline out of range', withFields('mcp: { command: x }\ntools: [a]\ndeadline: 600'), 'server/apps/shop.md: deadline is 600'],
    ['a narrator reading a tool not offered', withFields('mcp: { command: x }\ntools: [a]\nnarrate: { after: [a], with: b, say: hi }'), 'narrate names "b"'],
    ['a spec with no server', withFields('openapi: { spec: a.json }\noperations: [a]'), 'server/apps/shop.md: openapi.server is missing: give the API\'s base URL'],
    ['a server with a query', withFields('openapi: { spec: a.json, server: "https://api.example.com/v1?key=abc" }\noperations: [a]'), 'openapi.server holds a user name, a password or a query'],
    ['reads: in a spec’s file', withFields('openapi: { spec: a.json, server: "https://a" }\noperations: [a]\nreads: [a]'), 'server/apps/shop.md: reads is for an MCP server'],
    ['reads: naming a tool not offered', withFields('mcp: { command: x }\ntools: [a]\nreads: [b]'), 'server/apps/shop.md: reads names "b"'],
    ['private: that is not true or false', withFields('mcp: { command: x }\ntools: [a]\nprivate: yes please'), 'server/apps/shop.md: private must be true or false'],
    ['a secret written in the file', withFields('mcp: { url: "https://a", headers: { Authorization: "Bearer abc" } }\ntools: [a]'), 'server/apps/shop.md: mcp.headers.Authorization holds a secret, which is never written in the app file'],
  ])('refuses %s, naming the file and the field', (_case, text, sentence) => {
    expect(refusal(text)).toContain(sentence);
  });

  it('reads a spec’s auth as the header it sends, the credential only from the environment', () => {
    const bearer = parseAppFile('shop.md', withFields('openapi: { spec: a.json, server: "https://shop.example.com", auth: { bearer: env:SHOP_TOKEN } }\noperations: [a]'));
    expect(bearer.kind === 'openapi' && bearer.openapi.headers).toEqual({ Authorization: { env: 'SHOP_TOKEN', prefix: 'Bearer ', field: 'openapi.auth.bearer' } });
    if (bearer.kind === 'openapi') expect(secretValue('shop.md', 'openapi.headers.Authorization', bearer.openapi.headers.Authorization ?? { text: '' }, { SHOP_TOKEN: 'abc' })).toBe('Bearer abc');
    const keyed = parseAppFile('shop.md', withFields('openapi: { spec: a.json, server: "https://shop.example.com", auth: { header: api_key, value: env:SHOP_KEY } }\noperations: [a]'));
    expect(keyed.kind === 'openapi' && keyed.openapi.headers).toEqual({ api_key: { env: 'SHOP_KEY', field: 'openapi.auth.value' } });
    if (keyed.kind === 'openapi') expect(() => secretValue('shop.md', 'openapi.headers.api_key', keyed.openapi.headers.api_key ?? { text: '' }, {})).toThrow('server/apps/shop.md: openapi.auth.value names the environment variable SHOP_KEY');
    expect(refusal(withFields('openapi: { spec: a.json, server: "https://shop.example.com", auth: { bearer: abc123 } }\noperations: [a]'))).toContain('openapi.auth.bearer must name the environment variable');
    expect(refusal(withFields('openapi: { spec: a.json, server: "https://shop.example.com", auth: { header: api_key } }\noperations: [a]'))).toContain('openapi.auth needs');
  });

  it('refuses a file whose name is no app name', () => {
    expect(refusal(MCP, 'My Tools.md')).toContain('server/apps/My Tools.md: name');
  });

  it('reads a secret from the environment at start, and refuses one that is not set, naming the variable', () => {
    expect(secretValue('a.md', 'mcp.headers.Authorization', { env: 'TOKEN' }, { TOKEN: 'Bearer xyz' })).toBe('Bearer xyz');
    expect(secretValues('a.md', 'mcp.env', { MODE: { text: 'quiet' } }, {})).toEqual({ MODE: 'quiet' });
    expect(() => secretValue('a.md', 'mcp.headers.Authorization', { env: 'TOKEN' }, {})).toThrow('server/apps/a.md: mcp.headers.Authorization names the environment variable TOKEN, which is not set');
  });
});
