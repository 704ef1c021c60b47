import { describe, expect, it } from 'vitest';
import { hasRecogniser, recognitionLanguage, webSpeechRecogniser } from '../../src/platform/recogniser';

/** A stand-in for the browser's recognition object that the test drives by hand. */
class FakeRecognition {
  static made: FakeRecognition[] = [];
  continuous = false;
  interimResults = false;
  lang = '';
  maxAlternatives = 0;
  started = false;
  stopped = false;
  onresult: ((event: { resultIndex: number; results: { isFinal: boolean; 0: { transcript: string } }[] }) => void) | null = null;
  onerror: ((event: { error: string }) => void) | null = null;
  onend: (() => void) | null = null;
  constructor() {
    FakeRecognition.made.push(this);
  }
  start() {
    this.started = true;
  }
  stop() {
    this.stopped = true;
  }
  abort() {
    this.stopped = true;
  }
  say(results: [string, boolean][], resultIndex = 0) {
    this.onresult?.({ resultIndex, results: results.map(([transcript, isFinal]) => ({ isFinal, 0: { transcript } })) });
  }
}

function setUp(languages: string[] = ['en-GB', 'en']) {
  FakeRecognition.made = [];
  const recogniser = webSpeechRecogniser({ SpeechRecognition: FakeRecognition }, languages);
  if (recogniser === undefined) throw new Error('no recogniser');
  const heard: string[] = [];
  recogniser.on('interim', (t) => heard.push(`interim ${t}`));
  recogniser.on('final', (t) => heard.push(`final ${t}`));
  recogniser.on('ended', () => heard.push('ended'));
  recogniser.on('failed', (e) => heard.push(`failed ${e}`));
  const session = (i = -1) => {
    const made = FakeRecognition.made.at(i);
    if (made === undefined) throw new Error('no session');
    return made;
  };
  return { recogniser, heard, session };
}

describe('the Web Speech recogniser', () => {
  it('is missing where the browser has none, and found under either name', () => {
    expect(hasRecogniser({})).toBe(false);
    expect(webSpeechRecogniser({}, [])).toBeUndefined();
    expect(hasRecogniser({ webkitSpeechRecognition: FakeRecognition })).toBe(true);
  });

  it('listens continuously with interim results, in the browser’s own variant of the language', () => {
    const { recogniser, session } = setUp();
    recogniser.start('en');
    expect(session()).toMatchObject({ continuous: true, interimResults: true, lang: 'en-GB', started: true });
    expect(recognitionLanguage('ko', ['en-GB'])).toBe('ko');
    expect(recognitionLanguage('pt-BR', ['pt-PT'])).toBe('pt-BR');
  });

  it('reports unfinished words as interim and committed ones as final', () => {
    const { recogniser, heard, session } = setUp();
    recogniser.start('en');
    session().say([['what is', false]]);
    session().say([['what is the', false], [' weather', false]]);
    session().say([['what is the weather', true]]);
    session().say([['what is the weather', true], ['and', false]], 1);
    expect(heard).toEqual(['interim what is', 'interim what is the weather', 'final what is the weather', 'interim and']);
  });

  it('says when a session ends by itself, but not when it was stopped', () => {
    const { recogniser, heard, session } = setUp();
    recogniser.start('en');
    session().onend?.();
    expect(heard).toEqual(['ended']);
    recogniser.start('en');
    recogniser.stop();
    session().onend?.();
    expect(heard).toEqual(['ended']);
  });

  it('still hands over a held sentence that arrives after the stop, but no more live words', () => {
    const { recogniser, heard, session } = setUp();
    recogniser.start('en');
    session().say([['turn it', false]]);
    recogniser.stop();
    expect(session().stopped).toBe(true);
    session().say([['turn it off', false]]);
    session().say([['turn it off', true]]);
    expect(heard).toEqual(['interim turn it', 'final turn it off']);
  });

  it('waits for a stopping session to end before opening the next (the browser refuses two)', () => {
    const { recogniser, session } = setUp();
    recogniser.start('en');
    recogniser.stop();
    recogniser.start('en');
    expect(FakeRecognition.made).toHaveLength(1);
    session().onend?.();
    expect(FakeRecognition.made).toHaveLength(2);
    expect(session().started).toBe(true);
  });

  it('reports failures by the API’s own error codes, and ignores a stopped session’s', () => {
    const { recogniser, heard, session } = setUp();
    recogniser.start('en');
    session().onerror?.({ error: 'not-allowed' });
    expect(heard).toEqual(['failed not-allowed']);
    recogniser.start('en');
    recogniser.stop();
    session().onerror?.({ error: 'aborted' });
    expect(heard).toEqual(['failed not-allowed']);
  });

  it('starts once however often it is asked, and restarts for a new language', () => {
    const { recogniser, session } = setUp(['en-US']);
    recogniser.start('en');
    recogniser.start('en');
    expect(FakeRecognition.made).toHaveLength(1);
    recogniser.start('fr');
    session(0).onend?.();
    expect(FakeRecognition.made).toHaveLength(2);
    expect(session().lang).toBe('fr');
  });
});
