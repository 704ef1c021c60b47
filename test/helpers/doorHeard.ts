/** Reads a streamed answer from the door whole, as a test's client hears it: its text and the door's own events, or its text alone. */

/** One streamed answer, read whole: its status, its text and the door's own events, in order. */
export interface Heard {
  status: number;
  text: string;
  events: { event: string; data: Record<string, unknown> }[];
}

/** The answer `res` streams: the text its chunks carry, and each named event with its data. */
export async function heardOf(res: Response): Promise<Heard> {
  const heard: Heard = { status: res.status, text: '', events: [] };
  for (const block of (await res.text()).split(/\n\n/)) {
    const lines = block.split('\n');
    const name = lines.find((l) => l.startsWith('event:'))?.slice(6).trim();
    const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
    if (data === '' || data === '[DONE]') continue;
    const parsed = JSON.parse(data) as Record<string, unknown>;
    if (name !== undefined) {
      heard.events.push({ event: name, data: parsed });
      continue;
    }
    const choices = parsed.choices as { delta?: { content?: string } }[] | undefined;
    heard.text += choices?.[0]?.delta?.content ?? '';
  }
  return heard;
}

/** The text of the answer `res` streams, from the chunk on each of its data lines (an answer with no events of the door's). */
export async function answerTextOf(res: Response): Promise<string> {
  let answer = '';
  for (const line of (await res.text()).split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const chunk = JSON.parse(line.slice(6)) as { choices: { delta: { content?: string } }[] };
    answer += chunk.choices[0]?.delta.content ?? '';
  }
  return answer;
}
