/**
 * The ceilings of `npm run bench -- scale-out`, each tried over two instances at once, so a limit
 * counted in one process's memory shows: twice the ceiling gets through.
 *
 * - The site's answers a minute: several persons' turns, sent to each instance in turn, more than the
 *   ceiling; held when no more than the ceiling were answered, and some were.
 * - New persons per client address an hour: browsers with no cookie from an address of their own,
 *   to each instance in turn, twice the count; held when no more than the count became persons.
 * - An MCP token's calls a second: one token on both instances, a burst of calls from each at once;
 *   held when no more were admitted than the token's bucket holds (`maxCallsPerSecond`) plus what it
 *   refills over the burst's own length.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { McpTokenMade } from '../../common/mcp/tokens';
import { arriveFrom, HttpPerson } from './scaleOutClient';
import type { Tally } from './scaleOutClient';

/** The other address of the loopback new persons arrive from: its count is theirs alone. */
const NEW_PERSONS_ADDRESS = '127.0.0.2';

export interface CeilingHeld {
  /** The ceiling configured. */
  limit: number;
  tried: number;
  /** Tries that went through (answered, admitted, made a person). */
  through: number;
  /** Tries refused for the ceiling. */
  refused: number;
  /** Through each instance, in order. */
  throughByInstance: number[];
  held: boolean;
}

/** `turns` turns from `persons` persons, each person's turns sent to each instance in turn, all within the minute. */
export async function siteAnswersHeld(bases: readonly string[], tally: Tally, limit: number, persons: number, turns: number): Promise<CeilingHeld> {
  const people = Array.from({ length: persons }, () => new HttpPerson(tally));
  for (const [i, person] of people.entries()) await person.grant(bases[i % bases.length] ?? '');
  const throughByInstance = bases.map(() => 0);
  let through = 0;
  let refused = 0;
  for (let i = 0; i < turns; i++) {
    const person = people[i % persons] as HttpPerson;
    const at = Math.floor(i / persons) % bases.length;
    const turn = await person.turn(bases[at] ?? '', 'What time is it?', { conversation: `ceiling-${String(i % persons)}` });
    if (turn.status === 200 && turn.done && turn.refusedBy === null) {
      through += 1;
      throughByInstance[at] = (throughByInstance[at] ?? 0) + 1;
    } else if (turn.refusedBy === 'site') refused += 1;
    else throw new Error(`A turn under the site's ceiling answered ${String(turn.status)} (${turn.refusedBy ?? 'no refusal said'}).`);
  }
  return { limit, tried: turns, through, refused, throughByInstance, held: through > 0 && through <= limit };
}

/** `tries` browsers with no cookie, from one address of their own, to each instance in turn. */
export async function newPersonsHeld(bases: readonly string[], bot: string, limit: number, tries: number): Promise<CeilingHeld> {
  const throughByInstance = bases.map(() => 0);
  let refused = 0;
  for (let i = 0; i < tries; i++) {
    const at = i % bases.length;
    const status = await arriveFrom(bases[at] ?? '', NEW_PERSONS_ADDRESS, bot);
    if (status === 200) throughByInstance[at] = (throughByInstance[at] ?? 0) + 1;
    else if (status === 429) refused += 1;
    else throw new Error(`A new person's start answered ${String(status)}.`);
  }
  const through = throughByInstance.reduce((sum, n) => sum + n, 0);
  return { limit, tried: tries, through, refused, throughByInstance, held: through > 0 && through <= limit };
}

export interface McpCallsHeld extends CeilingHeld {
  /** From the first call sent to the last answered, ms. */
  burstMs: number;
  /** The most the bucket could admit over the burst: its depth and its refill. */
  most: number;
}

/** `callsEach` calls of `lists.read` from each instance at once, `parallel` at a time per instance, with one token. */
export async function mcpCallsHeld(bases: readonly string[], tally: Tally, perSecond: number, callsEach: number, parallel: number): Promise<McpCallsHeld> {
  const maker = new HttpPerson(tally);
  const made = await maker.call(bases[0] ?? '', '/api/mcp/tokens', { body: { name: 'scale-out', bots: [maker.bot] } });
  if (made.status !== 201) throw new Error(`Making the MCP token answered ${String(made.status)}.`);
  const { token } = (await made.json()) as McpTokenMade;
  const clients: Client[] = [];
  try {
    for (const base of bases) {
      const client = new Client({ name: 'confab-scale-out', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      clients.push(client);
    }
    const throughByInstance = bases.map(() => 0);
    let refused = 0;
    const started = performance.now();
    const calling = async (client: Client, at: number) => {
      for (let i = 0; i < callsEach; i++) {
        const result = await client.callTool({ name: 'lists-read', arguments: { list: 'shopping' } });
        const said = JSON.stringify(result.content);
        if (result.isError !== true) throughByInstance[at] = (throughByInstance[at] ?? 0) + 1;
        else if (said.includes('rate_limited')) refused += 1;
        else throw new Error(`An MCP call failed otherwise than by the rate: ${said.slice(0, 200)}`);
      }
    };
    await Promise.all(clients.flatMap((client, at) => Array.from({ length: parallel }, () => calling(client, at))));
    const burstMs = performance.now() - started;
    const through = throughByInstance.reduce((sum, n) => sum + n, 0);
    const most = Math.floor(perSecond * (1 + burstMs / 1000));
    return { limit: perSecond, tried: callsEach * parallel * bases.length, through, refused, throughByInstance, burstMs: Math.round(burstMs), most, held: through > 0 && through <= most };
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  }
}
