/**
 * The door benchmark's upstream, in a process of its own, as a provider is never in the door's:
 * work the door does on its own thread once a question has left (an embedded database's
 * statements) must not hold up the provider's clock. Started by `startUpstreamProcess`; run alone,
 * it serves the benchmark's answer and tells its parent, over IPC, its address and when each request
 * has been read (ms since the epoch, from `performance.timeOrigin`, so both processes share a clock).
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { delay, startUpstream } from '../server/chat/localServers';
import type { Script } from '../server/chat/localServers';

export interface UpstreamAnswer {
  firstTokenMs: number;
  tokenGapMs: number;
  words: readonly string[];
}

type Message = { ready: string } | { arrivedAtEpochMs: number };

/** The answer: the first token after `firstTokenMs`, then the rest, usage and `[DONE]`. */
export const answering = (answer: UpstreamAnswer, arrived: () => void): Script => async (reply) => {
  arrived();
  await delay(answer.firstTokenMs);
  for (const [i, word] of answer.words.entries()) {
    if (i > 0) await delay(answer.tokenGapMs);
    reply.token(word);
  }
  reply.finish();
  reply.usage(60, answer.words.length);
  reply.done();
};

export interface UpstreamProcess {
  baseUrl: string;
  /** When the next request is read by the upstream, on this process's `performance.now()` clock. */
  nextArrival(): Promise<number>;
  /** Forgets arrivals told so far and any not yet told (for runs that do not time them). */
  ignoreArrivals(ignore: boolean): void;
  close(): Promise<void>;
}

export async function startUpstreamProcess(answer: UpstreamAnswer): Promise<UpstreamProcess> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [JSON.stringify(answer)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const arrivals: number[] = [];
  const waiters: ((atMs: number) => void)[] = [];
  let ignoring = false;
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      reject(new Error(`The benchmark's upstream process exited (${String(code)}) before it listened.`));
    });
    child.on('message', (message: Message) => {
      if ('ready' in message) {
        resolve(message.ready);
        return;
      }
      if (ignoring) return;
      const atMs = message.arrivedAtEpochMs - performance.timeOrigin;
      const waiter = waiters.shift();
      if (waiter === undefined) arrivals.push(atMs);
      else waiter(atMs);
    });
  });
  return {
    baseUrl,
    nextArrival: () => {
      const told = arrivals.shift();
      return told === undefined ? new Promise((resolve) => waiters.push(resolve)) : Promise.resolve(told);
    },
    ignoreArrivals: (ignore) => {
      ignoring = ignore;
      arrivals.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => {
          resolve();
        });
        child.kill();
      }),
  };
}

if (process.send !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  const answer = JSON.parse(process.argv[2] ?? '{}') as UpstreamAnswer;
  const send = (message: Message) => process.send?.(message);
  const upstream = await startUpstream(
    answering(answer, () => {
      send({ arrivedAtEpochMs: performance.timeOrigin + performance.now() });
    }),
  );
  send({ ready: upstream.baseUrl });
  process.on('disconnect', () => {
    void upstream.close().then(() => process.exit(0));
  });
}
