/** Reads a streamed answer from the door whole, as a test's client hears it. */

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
