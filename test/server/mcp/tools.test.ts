/**
 * The registry projected as MCP tools: a pure function of the verbs, snapshot-tested on the tests'
 * own app, and checked against every shipped app: each verb's own schemas, a required key for each
 * write, annotations from its risk.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { inputSchemaOf, outputSchemaOf, toolNameOf } from '../../../server/verbs/project';
import { createRegistry, loadApps } from '../../../server/verbs/registry';
import { defineApp, defineVerb } from '../../../server/verbs/verb';
import { McpProjectionError, mcpToolOf, mcpTools } from '../../../server/mcp/tools';
import probe from './probeApp';

describe('mcpTools', () => {
  it('projects a read, a keyed write, a verb the person must confirm and an always verb', () => {
    expect(mcpTools(probe.verbs)).toMatchInlineSnapshot(`
      [
        {
          "annotations": {
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false,
            "readOnlyHint": true,
            "title": "probe.wait",
          },
          "confirm": false,
          "description": "Waits, then says how long it waited. Example: "wait a moment".",
          "inputSchema": {
            "properties": {
              "ms": {
                "maximum": 20000,
                "minimum": 0,
                "type": "integer",
              },
              "tag": {
                "maxLength": 64,
                "type": "string",
              },
            },
            "required": [
              "ms",
            ],
            "type": "object",
          },
          "keyed": false,
          "name": "probe-wait",
          "outputSchema": {
            "additionalProperties": false,
            "properties": {
              "waitedMs": {
                "type": "number",
              },
            },
            "required": [
              "waitedMs",
            ],
            "type": "object",
          },
          "verb": "probe.wait",
        },
        {
          "annotations": {
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false,
            "readOnlyHint": false,
            "title": "probe.note",
          },
          "confirm": false,
          "description": "Keeps a short note. Example: "note that the door is blue". Give an idempotencyKey; a retry with the same key does not do it twice.",
          "inputSchema": {
            "properties": {
              "idempotencyKey": {
                "description": "Your key for this change, 16–64 letters, digits, dashes or underscores (a UUID works). Use a new key for each new change, and the same key only to retry a call whose outcome you do not know: the retry returns the first result without doing it again.",
                "maxLength": 64,
                "minLength": 16,
                "pattern": "^[A-Za-z0-9_-]{16,64}$",
                "type": "string",
              },
              "text": {
                "maxLength": 100,
                "minLength": 1,
                "type": "string",
              },
            },
            "required": [
              "text",
              "idempotencyKey",
            ],
            "type": "object",
          },
          "keyed": true,
          "name": "probe-note",
          "outputSchema": {
            "additionalProperties": false,
            "properties": {
              "kept": {
                "type": "string",
              },
            },
            "required": [
              "kept",
            ],
            "type": "object",
          },
          "verb": "probe.note",
        },
        {
          "annotations": {
            "destructiveHint": true,
            "idempotentHint": true,
            "openWorldHint": false,
            "readOnlyHint": false,
            "title": "probe.wipe",
          },
          "confirm": true,
          "description": "Forgets every note. Example: "forget my notes". It needs the person's yes in their Confab page, so it cannot be run over MCP.",
          "inputSchema": {
            "properties": {
              "idempotencyKey": {
                "description": "Your key for this change, 16–64 letters, digits, dashes or underscores (a UUID works). Use a new key for each new change, and the same key only to retry a call whose outcome you do not know: the retry returns the first result without doing it again.",
                "maxLength": 64,
                "minLength": 16,
                "pattern": "^[A-Za-z0-9_-]{16,64}$",
                "type": "string",
              },
            },
            "required": [
              "idempotencyKey",
            ],
            "type": "object",
          },
          "keyed": true,
          "name": "probe-wipe",
          "outputSchema": {
            "additionalProperties": false,
            "properties": {
              "wiped": {
                "type": "number",
              },
            },
            "required": [
              "wiped",
            ],
            "type": "object",
          },
          "verb": "probe.wipe",
        },
        {
          "annotations": {
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false,
            "readOnlyHint": true,
            "title": "probe.now",
          },
          "confirm": false,
          "description": "The time, in ms since the epoch. Example: "what time is it".",
          "inputSchema": {
            "properties": {},
            "type": "object",
          },
          "keyed": false,
          "name": "probe-now",
          "outputSchema": {
            "additionalProperties": false,
            "properties": {
              "bot": {
                "type": "string",
              },
              "nowMs": {
                "type": "number",
              },
              "via": {
                "type": "string",
              },
            },
            "required": [
              "nowMs",
              "bot",
              "via",
            ],
            "type": "object",
          },
          "verb": "probe.now",
        },
      ]
    `);
  });

  it('projects every shipped verb from its own schemas, with a key required exactly for the writes', async () => {
    const registry = createRegistry(await loadApps());
    for (const verb of registry.verbs) {
      const tool = mcpToolOf(verb);
      expect(tool.name).toBe(toolNameOf(verb.name));
      expect(tool.outputSchema).toEqual(outputSchemaOf(verb));
      // Take the key away again, and what is left is the verb's own input schema.
      const { properties, required, ...rest } = tool.inputSchema as { properties: Record<string, unknown>; required?: string[] };
      const { idempotencyKey, ...ownProperties } = properties;
      const ownRequired = required?.filter((field) => field !== 'idempotencyKey') ?? [];
      expect({ ...rest, properties: ownProperties, ...(ownRequired.length === 0 ? {} : { required: ownRequired }) }).toEqual(inputSchemaOf(verb));
      expect(idempotencyKey !== undefined).toBe(verb.risk !== 'read');
      expect(required?.includes('idempotencyKey') ?? false).toBe(verb.risk !== 'read');
      expect(tool.annotations).toMatchObject({ readOnlyHint: verb.risk === 'read', destructiveHint: verb.risk === 'destructive', idempotentHint: true, openWorldHint: false });
      expect(tool.description.startsWith(verb.description)).toBe(true);
    }
  });

  it('is pure: the same verbs project the same tools', () => {
    expect(mcpTools(probe.verbs)).toEqual(mcpTools(probe.verbs));
  });

  it('refuses a write whose own input already has a field called idempotencyKey', () => {
    const clash = defineApp({
      name: 'clash',
      description: 'x',
      verbs: [
        defineVerb({
          name: 'clash.put',
          description: 'Puts.',
          example: 'put it',
          input: z.object({ idempotencyKey: z.string() }),
          output: z.object({}),
          risk: 'write',
          deadlineMs: 100,
          run: () => Promise.resolve({}),
        }),
      ],
    });
    expect(() => mcpTools(clash.verbs)).toThrow(McpProjectionError);
  });
});
