/**
 * OpenAPI schemas as the JSON Schema 2020-12 the verbs are validated in (openApiSchema.ts): 3.0's
 * dialect rewritten, what travels one way only not required the other, 3.1's left as it is.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { toJsonSchema } from '../../../server/outside/openApiSchema';

describe('OpenAPI 3.0 schemas as JSON Schema 2020-12', () => {
  const ajv = new Ajv2020({ strict: false });

  it('says nullable as a null type or value, an exclusive bound as its number, an example as examples', () => {
    const schema = toJsonSchema(
      {
        type: 'object',
        properties: {
          nickname: { type: 'string', nullable: true, example: 'Rex' },
          size: { type: 'string', enum: ['s', 'l'], nullable: true },
          weight: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 90, exclusiveMaximum: false },
          owner: { allOf: [{ type: 'object' }], nullable: true },
        },
      },
      '3.0',
      'request',
    );
    expect(schema.properties).toEqual({
      nickname: { type: ['string', 'null'], examples: ['Rex'] },
      size: { type: ['string', 'null'], enum: ['s', 'l', null] },
      weight: { type: 'number', exclusiveMinimum: 0, maximum: 90 },
      owner: { anyOf: [{ allOf: [{ type: 'object' }] }, { type: 'null' }] },
    });
    const validate = ajv.compile(schema);
    expect(validate({ nickname: null, size: null, weight: 1, owner: null })).toBe(true);
    expect(validate({ weight: 0 })).toBe(false);
  });

  it('keeps an enum given through allOf (a $ref with its own description beside it), null as one more value when nullable', () => {
    const status = { type: 'string', enum: ['available', 'pending', 'sold'], 'x-enum-varnames': ['A', 'P', 'S'] };
    const schema = toJsonSchema({ allOf: [status], description: 'The pet’s status in the store.', nullable: true }, '3.0', 'request');
    expect(schema).toEqual({ anyOf: [{ allOf: [{ type: 'string', enum: ['available', 'pending', 'sold'] }], description: 'The pet’s status in the store.' }, { type: 'null' }] });
    const validate = ajv.compile(schema);
    expect([validate('sold'), validate(null), validate('lost')]).toEqual([true, true, false]);
  });

  it('does not require of a request what the server writes (readOnly), nor of an answer what it never sends (writeOnly)', () => {
    const user = { type: 'object', required: ['id', 'name', 'password'], properties: { id: { type: 'integer', readOnly: true }, name: { type: 'string' }, password: { type: 'string', writeOnly: true } } };
    expect(toJsonSchema(user, '3.0', 'request').required).toEqual(['name', 'password']);
    expect(toJsonSchema(user, '3.0', 'response').required).toEqual(['id', 'name']);
  });

  it('leaves 3.1’s own JSON Schema as it is', () => {
    const schema = { type: ['string', 'null'], exclusiveMinimum: 3, examples: ['a'] };
    expect(toJsonSchema(schema, '3.1', 'response')).toEqual(schema);
  });
});
