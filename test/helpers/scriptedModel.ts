/**
 * A scripted language model for the browser benchmarks, speaking OpenAI's streaming
 * chat-completions format on 127.0.0.1, in a worker thread of its own: a real model is another
 * machine, whose pace does not slow down while Confab's server (in the benchmark's own thread) is
 * busy, and neither does this one. Every request is answered with the same words, the first at once
 * and then one every `gapMs`, then usage and `[DONE]`.
 */
import { Worker } from 'node:worker_threads';

export interface ScriptedModel {
  /** `http://127.0.0.1:<port>/v1`, as a provider's base URL. */
  baseUrl: string;
  close: () => Promise<void>;
}

/** Plain JavaScript, run as the worker's own source: nothing of the test's build reaches it. */
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { words, gapMs, model } = workerData;
const chunk = (delta, finish) => 'data: ' + JSON.stringify({ id: 'bench-1', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }] }) + '\\n\\n';
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', async () => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(chunk({ role: 'assistant', content: '' }, null));
    for (const [i, word] of words.entries()) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
      if (res.destroyed) return;
      res.write(chunk({ content: word }, null));
    }
    res.write(chunk({}, 'stop'));
    res.write('data: ' + JSON.stringify({ id: 'bench-1', object: 'chat.completion.chunk', created: 1, model, choices: [], usage: { prompt_tokens: 200, completion_tokens: words.length, total_tokens: 200 + words.length } }) + '\\n\\n');
    res.end('data: [DONE]\\n\\n');
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => {
  server.closeAllConnections();
  server.close(() => parentPort.close());
});
`;

/** Starts the model; `words` are sent as they are (each with its own spacing). */
export async function startScriptedModel(options: { words: readonly string[]; gapMs: number; model: string }): Promise<ScriptedModel> {
  const worker = new Worker(SOURCE, { eval: true, workerData: { words: [...options.words], gapMs: options.gapMs, model: options.model } });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (message: number) => {
      resolve(message);
    });
    worker.once('error', reject);
  });
  return {
    baseUrl: `http://127.0.0.1:${String(port)}/v1`,
    close: async () => {
      const exited = new Promise<void>((resolve) => worker.once('exit', () => {
        resolve();
      }));
      worker.postMessage('close');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      await worker.terminate();
    },
  };
}
