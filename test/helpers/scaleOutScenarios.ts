/**
 * The parts of `npm run bench -- scale-out` (test/bench/scale-out.ts) that drive the instances: each
 * person's turns sent to each instance in turn, two pages' presence across two instances, a memory
 * forgotten on one and asked after on the other, a run whose instance is killed mid-step. Each
 * answers what it measured; none decides what passes.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { spread } from './benchTimings';
import type { Spread } from './benchTimings';
import { carriesLine, HttpPerson, lineEvent, pageRef, toldOtherActive, untilMessage } from './scaleOutClient';
import type { Tally } from './scaleOutClient';
import type { Cluster, Instance } from './scaleOutServers';
import { delay } from '../server/chat/localServers';
import type { Upstream } from '../server/chat/localServers';

/** Turns in all, from `TURNING` persons at once. */
export const TURNS = 200;
const TURNING = 5;
/** Every so many of a person's turns is dropped `DROP_AFTER_MS` after it was sent, and sent again to the other instance. */
const RETRY_EVERY = 10;
const DROP_AFTER_MS = 30;
/** Steps the run has written when its instance is killed. */
const KILL_AFTER_STEPS = 3;
/** Things on the run's list: a reminder each. */
const RUN_ITEMS = 4;
/** The question asked after the forgetting, through each instance in turn. */
const FORGET_ASKS = 6;
/** A run's lease (server/runs/worker.ts), which a killed instance's run waits out. */
export const LEASE_MS = 30_000;
const PATIENCE_MS = 90_000;
const MESSAGE_MS = 10_000;

export const headline = (s: Spread) => ({ p50: s.p50, p95: s.p95, n: s.n });

interface Export {
  tables: Record<string, Record<string, unknown>[]>;
}

async function exportOf(person: HttpPerson, base: string): Promise<Export> {
  const res = await person.call(base, '/api/me/export');
  if (res.status !== 200) throw new Error(`An export answered ${String(res.status)}.`);
  return (await res.json()) as Export;
}

/** `TURNS` turns, and each person's things read back through the other instance. */
export async function turnsAcross(bases: readonly string[], tally: Tally) {
  const served = bases.map(() => 0);
  let retried = 0;
  let duplicateWrites = 0;
  let failed = 0;
  const people = Array.from({ length: TURNING }, () => new HttpPerson(tally));
  await Promise.all(
    people.map(async (person, p) => {
      const mine = TURNS / TURNING;
      let at = p % bases.length;
      for (let i = 0; i < mine; i++) {
        const said = `add thing ${String(p)}-${String(i)} to my shopping list`;
        const options = { conversation: `turns-${String(p)}`, turn: randomUUID() };
        if ((i + 1) % RETRY_EVERY === 0) {
          // The page's connection drops mid-turn; it sends the same turn again, here to the other instance.
          const dropped = new AbortController();
          setTimeout(() => { dropped.abort(); }, DROP_AFTER_MS);
          await person.turn(bases[at] ?? '', said, { ...options, signal: dropped.signal }).catch(() => undefined);
          at = (at + 1) % bases.length;
          retried += 1;
        }
        const turn = await person.turn(bases[at] ?? '', said, options);
        if (turn.status === 200 && turn.done && turn.refusedBy === null) served[at] = (served[at] ?? 0) + 1;
        else failed += 1;
        at = (at + 1) % bases.length;
      }
      const { tables } = await exportOf(person, bases[at] ?? '');
      const kept = (tables.list_items ?? []).map((row) => String(row.item));
      for (let i = 0; i < mine; i++) {
        const copies = kept.filter((item) => item === `thing ${String(p)}-${String(i)}`).length;
        duplicateWrites += copies === 0 ? 1 : copies - 1;
      }
      const adds = (tables.verb_calls ?? []).filter((row) => row.verb === 'lists.add').length;
      duplicateWrites += Math.max(0, adds - mine);
    }),
  );
  return { turns: served.reduce((sum, n) => sum + n, 0), persons: TURNING, servedByInstance: served, retried, failed, duplicateWrites };
}

/** Handovers back and forth between page A (through `first`) and page B (through `second`), then lines both ways. */
export async function presenceAcross(first: string, second: string, tally: Tally, handovers: number, fanOuts: number) {
  const person = new HttpPerson(tally);
  // The person first, so the two streams, opened together, are one person's.
  await person.grant(first);
  const [a, b] = await Promise.all(
    [first, second].map(async (base) => {
      const page = pageRef();
      return { base, page, stream: await person.open(base, page) };
    }),
  );
  if (a === undefined || b === undefined) throw new Error('Two pages were opened.');
  try {
    // Each page is known to the referee once its stream has said hello.
    await Promise.all([a, b].map((side) => side.stream.next('hello', () => true, MESSAGE_MS)));
    // Handovers by the instance whose page was told: the first's (a claim sent to the second) and the second's.
    const handoverMs = { toldOnFirst: [] as number[], toldOnSecond: [] as number[] };
    for (let r = -1; r < handovers; r++) {
      // Round -1 settles that page A is active, untimed: B may have been told so already, in its hello.
      const [to, from, into] = r % 2 === 0 ? [b, a, handoverMs.toldOnFirst] : [a, b, handoverMs.toldOnSecond];
      const seen = untilMessage(from.stream, r < 0 ? 0 : from.stream.messages.length, (m) => toldOtherActive(m, from.page), MESSAGE_MS);
      const sentAt = performance.now();
      await person.claim(to.base, to.page);
      const toldAt = await seen;
      if (r >= 0) into.push(toldAt - sentAt);
      await delay(20);
    }
    const fanOutMs = { firstToSecond: [] as number[], secondToFirst: [] as number[] };
    for (let r = 0; r < fanOuts; r++) {
      const [from, to, into] = r % 2 === 0 ? [a, b, fanOutMs.firstToSecond] : [b, a, fanOutMs.secondToFirst];
      const text = `Fan-out line number ${String(r)}.`;
      const seen = untilMessage(to.stream, to.stream.messages.length, (m) => carriesLine(m, text), MESSAGE_MS);
      const sentAt = performance.now();
      await person.publish(from.base, from.page.page, [lineEvent('fan-out', text, r)]);
      into.push((await seen) - sentAt);
    }
    return {
      handoverMs: spread([...handoverMs.toldOnFirst, ...handoverMs.toldOnSecond]),
      handoverByTold: { onFirst: headline(spread(handoverMs.toldOnFirst)), onSecond: headline(spread(handoverMs.toldOnSecond)) },
      fanOutMs: { firstToSecond: spread(fanOutMs.firstToSecond), secondToFirst: spread(fanOutMs.secondToFirst) },
    };
  } finally {
    a.stream.close();
    b.stream.close();
  }
}

/** Something said through `first`, recalled there, forgotten through `second`, asked after through each. */
export async function forgetAcross(first: string, second: string, tally: Tally, provider: Upstream) {
  const person = new HttpPerson(tally);
  const marker = String(1000 + Math.floor(Math.random() * 9000));
  const ask = async (base: string, said: string): Promise<boolean> => {
    const turn = await person.turn(base, said, { conversation: `forget-${randomUUID()}` });
    if (turn.status !== 200 || !turn.done || turn.refusedBy !== null) throw new Error(`A turn on the provider answered ${String(turn.status)} (${turn.refusedBy ?? 'not refused'}).`);
    const prompt = (provider.received.at(-1)?.body.messages ?? []) as { role: string; content: unknown }[];
    // Whatever went to the provider before the question itself: the notes the memory context wrote.
    return prompt.slice(0, -1).some((message) => JSON.stringify(message.content).includes(marker));
  };
  await ask(first, `Remember that my locker code is ${marker}.`);
  const kept = async () => {
    const res = await person.call(second, `/api/memories?bot=${person.bot}`);
    return ((await res.json()) as { memories: { id: string; text: string }[] }).memories.filter((m) => m.text.includes(marker));
  };
  // The memory is kept after the answer; the other instance sees it once it is.
  const untilMs = Date.now() + MESSAGE_MS;
  while ((await kept()).length === 0) {
    if (Date.now() > untilMs) throw new Error('What the person said was never kept as a memory.');
    await delay(50);
  }
  const question = 'What is my locker code?';
  const recalledBeforeForget = (await ask(first, question)) ? 1 : 0;
  for (const memory of await kept()) {
    const res = await person.call(second, `/api/memories/${memory.id}`, { method: 'DELETE' });
    if (res.status !== 204) throw new Error(`Forgetting a memory answered ${String(res.status)}.`);
  }
  let recalledAfterForget = 0;
  for (let i = 0; i < FORGET_ASKS; i++) if (await ask(i % 2 === 0 ? first : second, question)) recalledAfterForget += 1;
  return { recalledBeforeForget, recalledAfterForget, asks: FORGET_ASKS };
}

/** A run on the main pair, its lease holder killed mid-step; the survivor must finish it, each write once. */
export async function killedRunAcross(pair: readonly Instance[], cluster: Cluster, tally: Tally) {
  const person = new HttpPerson(tally);
  const [one, two] = pair as [Instance, Instance];
  for (let i = 0; i < RUN_ITEMS; i++) await person.turn(i % 2 === 0 ? one.url : two.url, `add errand ${String(i)} to my shopping list`, { conversation: 'run' });
  const started = await person.turn(one.url, 'go through my shopping list and remind me about each thing in an hour', { conversation: 'run' });
  if (started.status !== 200) throw new Error(`Starting the run answered ${String(started.status)}.`);
  const db = new pg.Client({ connectionString: cluster.direct('main') });
  await db.connect();
  try {
    const state = async () => {
      const { rows } = await db.query<{ id: string; state: string; lease_owner: string | null; steps: number }>(
        "select r.id, r.state, r.lease_owner, (select count(*) from run_steps s where s.run = r.id)::int as steps from runs r where r.asked like 'go through%'",
      );
      return rows[0];
    };
    let killed: Instance | undefined;
    let atStep = 0;
    const untilMs = Date.now() + PATIENCE_MS;
    while (killed === undefined) {
      const now = await state();
      if (Date.now() > untilMs || (now !== undefined && now.state !== 'running' && now.state !== 'queued')) throw new Error(`The run was never caught mid-way: ${JSON.stringify(now)}.`);
      if (now !== undefined && now.steps >= KILL_AFTER_STEPS && now.lease_owner !== null) {
        killed = pair.find((instance) => now.lease_owner?.startsWith(`${instance.instanceId}:`));
        atStep = now.steps;
      } else await delay(10);
    }
    const killedAt = performance.now();
    await killed.stop('SIGKILL');
    const survivor = killed === one ? two : one;
    let resumeMs = Number.NaN;
    let ended = await state();
    while (ended?.state === 'running' || ended?.state === 'queued') {
      if (Number.isNaN(resumeMs) && ended.lease_owner?.startsWith(`${survivor.instanceId}:`) === true) resumeMs = performance.now() - killedAt;
      if (performance.now() - killedAt > PATIENCE_MS) break;
      await delay(50);
      ended = await state();
    }
    const { tables } = await exportOf(person, survivor.url);
    const reminders = (tables.notices ?? []).filter((row) => row.app === 'reminders').length;
    const sets = (tables.verb_calls ?? []).filter((row) => row.verb === 'reminders.set').length;
    const duplicateWrites = Math.abs(reminders - RUN_ITEMS) + Math.max(0, sets - RUN_ITEMS);
    return { killedRunFinished: ended?.state === 'finished' && duplicateWrites === 0, state: ended?.state ?? 'none', killed: killed.name, atStep, resumeMs: Math.round(resumeMs), reminders, duplicateWrites };
  } finally {
    await db.end();
  }
}
