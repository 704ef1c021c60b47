/**
 * A stand-in for an OpenAI-shaped speech endpoint (`POST …/audio/speech`) on 127.0.0.1 that streams
 * raw PCM slowly — a tone, 24 kHz 16-bit little-endian mono, one chunk at a time — and records how
 * much of each reply it managed to send before its caller closed the connection. Or, given a
 * status, answers every request with that error. `answerWith` changes how later requests are
 * answered, so one endpoint (and one server in front of it) can serve several tests.
 */
import { listen } from '../../server/chat/localServers';
import type { Listening } from '../../server/chat/localServers';

export interface PcmStreamOptions {
  /** Bytes per chunk; even, so each chunk is whole samples. */
  chunkBytes: number;
  /** Milliseconds between chunks. */
  everyMs: number;
  /** Chunks in a whole reply. */
  chunks: number;
  /** Answer every request with this status and a JSON error instead of audio. */
  status?: number;
}

/** One reply the endpoint sent, or is sending. */
interface PcmReply {
  /** The request's JSON body. */
  body: Record<string, unknown>;
  /** Bytes handed to the socket so far. */
  bytesSent: () => number;
  /** The bytes a whole reply holds. */
  totalBytes: number;
  /** Resolves once the reply is over: `true` when the caller closed it before every byte was sent. */
  closedEarly: Promise<boolean>;
}

export interface PcmVoiceEndpoint extends Listening {
  /** `<url>/v1`, as COPILOT_TTS_URL would name it. */
  baseUrl: string;
  /** Every reply, in the order the requests came. */
  replies: PcmReply[];
  /** Answers requests from now on as `options` say. */
  answerWith(options: PcmStreamOptions): void;
}

function checked(options: PcmStreamOptions): PcmStreamOptions {
  if (options.chunkBytes % 2 !== 0) throw new RangeError(`chunkBytes is ${options.chunkBytes}; give an even number, so every chunk is whole samples.`);
  return options;
}

/** A 440 Hz tone at half scale, as int16 little-endian bytes starting at sample `from`. */
function tone(from: number, bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  for (let i = 0; i < bytes / 2; i += 1) {
    out.writeInt16LE(Math.round(16_384 * Math.sin((2 * Math.PI * 440 * (from + i)) / 24_000)), i * 2);
  }
  return out;
}

export async function startPcmVoiceEndpoint(initial: PcmStreamOptions): Promise<PcmVoiceEndpoint> {
  let current = checked(initial);
  const replies: PcmReply[] = [];
  const server = await listen((req, res) => {
    const options = current;
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
      if (options.status !== undefined) {
        res.writeHead(options.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'The stand-in endpoint is failing on purpose.' } }));
        replies.push({ body, bytesSent: () => 0, totalBytes: 0, closedEarly: Promise.resolve(false) });
        return;
      }
      let sent = 0;
      let chunk = 0;
      const totalBytes = options.chunkBytes * options.chunks;
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      const timer = setInterval(() => {
        if (res.destroyed) return;
        res.write(tone((chunk * options.chunkBytes) / 2, options.chunkBytes));
        sent += options.chunkBytes;
        chunk += 1;
        if (chunk === options.chunks) {
          clearInterval(timer);
          res.end();
        }
      }, options.everyMs);
      const closedEarly = new Promise<boolean>((resolve) => {
        res.on('close', () => {
          clearInterval(timer);
          resolve(sent < totalBytes);
        });
      });
      replies.push({ body, bytesSent: () => sent, totalBytes, closedEarly });
    });
  });
  return {
    ...server,
    baseUrl: `${server.url}/v1`,
    replies,
    answerWith(options) {
      current = checked(options);
    },
  };
}
