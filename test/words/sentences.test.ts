/**
 * Every sentence a person hears or reads comes from the words files (`words/<lang>.md`, an app's
 * `words/<lang>.md`), in their language; the code keeps none. This walks the source — `src/`,
 * `core/`, `server/`, `workers/`, `.ts` and `.vue`, tests aside — and fails naming `file:line` for
 * each sentence it finds written in code:
 *
 * - a string literal, quoted or template, that starts with a capital letter (or with a `${…}`, which
 *   can stand for one), has three words or more and ends in `.`, `!`, `?` or `…` (a closing quote or
 *   bracket may follow);
 * - Vue template text of three words or more, and such a literal inside a template's expressions.
 *
 * What only a developer or an operator reads is left alone by where it stands, never by a list of
 * files: a comment; a built-in error (`new Error(…)`, `new RangeError(…)`…); `console.*` and a
 * command-line tool's `out(…)`/`err(…)`; a log line (an object with an `event` field); what a model
 * or an MCP client reads of a tool's contract (a `description` property, Zod's `.describe(…)`), and
 * any other text marked as written for them (`forModel(…)`, `forMcpClient(…)`, `MACHINE_READERS`
 * below); text a person types rather than hears (a template's `code`, `kbd`, `samp`, `pre`); and the
 * errors whose message only an operator or a developer reads, `OPERATOR_ERRORS` below, each with
 * where its message goes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { parse as parseVue } from 'vue/compiler-sfc';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SCANNED = ['src', 'common', 'server', 'workers'];

/**
 * Error classes whose message goes to whoever runs the server, writes its files or its code — a
 * terminal, a log, a console — never to a person talking to a bot; each says where it goes. What a
 * person is told of one of these is a word of its own.
 */
const OPERATOR_ERRORS: Readonly<Record<string, string>> = {
  ConfigError: 'the environment the server starts with (server/config.ts)',
  BotFileError: 'a bot file, bots/<slug>.md, read at start',
  SkillFileError: 'a skill file, skills/<name>.md, read at start',
  WordsFileError: 'a words file itself, words/<lang>.md, read at start',
  AppFileError: 'an outside app’s file, read at start',
  AppError: 'an app folder’s code, read by the registry at start',
  McpProjectionError: 'a verb whose schema cannot be offered over MCP, found at start',
  MigrationError: 'a migration file, applied at start',
  DeafListenError: 'the database URL, probed at start: the log line that says presence polls instead',
  InstanceIdError: 'the server instance file in the data folder, read at start',
  ModelManifestError: 'models/manifest.json, the operator’s model pins',
  ModelBaseError: 'CONFAB_MODEL_BASE or --base, where models are fetched from',
  ModelDownloadError: 'a model host unreachable or answering an HTTP error: the terminal of npm run models, or the voice worker’s console; the page says its kind (VoiceLoadError) in words',
  ModelFileError: 'a model file that came out wrong twice: the terminal of npm run models, or the voice worker’s console; the page says its kind in words',
  ModelContractError: 'a model graph or tts.json that is not Supertonic’s: the voice worker’s console; the page says its kind in words',
  VoiceStyleError: 'a voice file the engine cannot use: the voice worker’s console, or the cause of a DeviceVoiceError whose words are said',
  EngineError: 'the voice model unable to run on this browser’s runtimes: the voice worker’s console, or the cause of a DeviceVoiceError; the page says its kind in words',
  LanguageError: 'a language the model does not read, asked of the voice worker: the cause of a DeviceVoiceError whose words are said',
  NotLoadedError: 'the page’s own code asking the voice worker before it loaded: a developer’s mistake, never shown',
  SileroContractError: 'a voice-activity graph that is not Silero v5: the console, where the page says voice activity is off',
  UsageError: 'a command-line tool’s arguments (npm run models, admin)',
  OptionError: 'an options object a developer passed, checked as it is built',
  DatabaseError: 'the storage layer failing: logged by its name; a person is told only that something went wrong',
  RefusedError: 'a row not the person’s or not there: the routes answer it with their own not-found words',
  EmbedderWidthError: 'an embedder the operator changed without renaming it, found as memories are kept: the log',
  EmbedderError: 'the embeddings endpoint the operator set up failing: the cause of a server error or an execution_failed, whose own word is said',
  WordVectorsError: 'the word-vectors file the operator converted, read at start: the terminal',
  VocabularyError: 'the sentence model’s vocabulary file, read at start: the terminal',
  UpstreamStreamError: 'a provider breaking its stream protocol: the cause of a ProviderError, or logged; the person hears the endings’ word',
  OpenApiCallError: 'an outside app’s HTTP answer gone wrong: the cause of an execution_failed, whose own word is said',
  RunModelStalled: 'a run’s model step given up as silent: an abort reason; the run ends with its runs word',
  StepStopped: 'a run’s model step cut off (cancelled, out of time): an abort reason; the run ends with its runs word',
  DataFolderBusy: 'another server holding the data folder, found at start: the terminal',
  BridgeError: 'the stdio bridge (npm run mcp) unable to start or reach the server: its exit line on stderr, for whoever set the client up',
  PrivateAddressError: 'an outside app’s address that is private without `private: true` in its file: its status and the log; a call hears execution_failed’s own word',
  PlayerDisposedError: 'the page’s own code using an audio player it disposed: a developer’s mistake, never shown',
  OutboxLineError: 'a line the page’s own code got wrong, or the cause kept beside a refusal whose reason is the page’s words',
};

/**
 * Calls that mark text as written for a program, not a person (`common/modelText.ts`): what a model
 * reads it says again in its own words, in the person's language.
 */
const MACHINE_READERS: Readonly<Record<string, string>> = {
  forModel: 'a model reads it: a tool’s result, a prompt, a verb’s contract',
  forMcpClient: 'an MCP client reads it: the protocol’s own refusals',
};

/** How a command-line tool (`npm run models`, `admin`, `mcp`) writes to the operator's terminal, as `console` does. */
const TERMINAL_WRITERS = new Set(['out', 'err']);

const BUILT_IN_ERRORS = new Set(['Error', 'RangeError', 'TypeError', 'SyntaxError', 'ReferenceError', 'EvalError', 'URIError', 'AggregateError']);

/** What one sentence in code looks like: where, and its text (a `${…}` stands as `…`). */
interface Found {
  line: number;
  text: string;
}

const ENDS_A_SENTENCE = /[.!?…]["'”’»)\]]*$/u;
const SUBSTITUTION = '${…}';

function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word) || word.includes(SUBSTITUTION)).length;
}

/** Whether `text` (a literal's text, each `${…}` as `…`) reads as a sentence. */
function isSentence(text: string): boolean {
  const trimmed = text.trim();
  return (/^\p{Lu}/u.test(trimmed) || trimmed.startsWith(SUBSTITUTION)) && ENDS_A_SENTENCE.test(trimmed) && wordCount(trimmed) >= 3;
}

function calleeName(expression: ts.Expression): string | undefined {
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression)) return expression.name.text;
  return undefined;
}

/** Whether the literal `node` stands where only a developer, an operator or a model reads it. */
function isExempt(node: ts.Node): boolean {
  for (let at = node.parent as ts.Node | undefined; at !== undefined; at = at.parent) {
    if (ts.isNewExpression(at)) {
      const name = calleeName(at.expression);
      if (name !== undefined && (BUILT_IN_ERRORS.has(name) || name in OPERATOR_ERRORS)) return true;
    }
    if (ts.isClassDeclaration(at) && at.name !== undefined && at.name.text in OPERATOR_ERRORS) return true;
    if (ts.isCallExpression(at)) {
      const callee = at.expression;
      if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'console') return true;
      if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'describe') return true;
      const name = calleeName(callee);
      if (name !== undefined && (TERMINAL_WRITERS.has(name) || name in MACHINE_READERS)) return true;
    }
    if (ts.isPropertyAssignment(at) && propertyName(at) === 'description') return true;
    if (ts.isObjectLiteralExpression(at) && at.properties.some((p) => ts.isPropertyAssignment(p) && propertyName(p) === 'event')) return true;
  }
  return false;
}

function propertyName(property: ts.PropertyAssignment): string | undefined {
  const name = property.name;
  return ts.isIdentifier(name) || ts.isStringLiteral(name) ? name.text : undefined;
}

/** The sentences written in `source` (TypeScript), lines counted from `firstLine`. */
function sentencesInScript(source: string, firstLine = 1): Found[] {
  const file = ts.createSourceFile('scanned.ts', source, ts.ScriptTarget.Latest, true);
  const found: Found[] = [];
  const visit = (node: ts.Node): void => {
    let text: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
    else if (ts.isTemplateExpression(node)) text = node.head.text + node.templateSpans.map((span) => SUBSTITUTION + span.literal.text).join('');
    // An import's path or a type's literal is not said; neither is a literal nested in a sentence already found.
    if (text !== undefined && !ts.isImportDeclaration(node.parent) && !ts.isLiteralTypeNode(node.parent) && isSentence(text) && !isExempt(node)) {
      found.push({ line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + firstLine, text: text.trim() });
      return;
    }
    node.forEachChild(visit);
  };
  visit(file);
  return found;
}

interface TemplateNode {
  type: number;
  tag?: string;
  content?: string | { content?: string };
  loc: { start: { line: number } };
  children?: TemplateNode[];
  props?: { type: number; name?: string; exp?: { content?: string; loc: { start: { line: number } } } }[];
}

const ELEMENT = 1;
const TEXT = 2;
const INTERPOLATION = 5;
const DIRECTIVE = 7;
const LITERAL_TAGS = new Set(['code', 'kbd', 'samp', 'pre']);

/** The sentences written in a Vue single-file component: its template's text and expressions, and its scripts. */
function sentencesInVue(source: string): Found[] {
  const { descriptor } = parseVue(source);
  const found: Found[] = [];
  for (const script of [descriptor.script, descriptor.scriptSetup]) {
    if (script !== null) found.push(...sentencesInScript(script.content, script.loc.start.line));
  }
  const expression = (code: string | undefined, line: number) => {
    if (code !== undefined && code.trim() !== '') found.push(...sentencesInScript(`(${code});`, line));
  };
  const walk = (node: TemplateNode): void => {
    // What stands in code, kbd, samp or pre is typed, not said: a command, a key, a path.
    if (node.type === ELEMENT && node.tag !== undefined && LITERAL_TAGS.has(node.tag)) return;
    if (node.type === TEXT && typeof node.content === 'string' && wordCount(node.content) >= 3) found.push({ line: node.loc.start.line, text: node.content.trim().replace(/\s+/g, ' ') });
    if (node.type === INTERPOLATION && typeof node.content === 'object') expression(node.content.content, node.loc.start.line);
    if (node.type === ELEMENT) for (const prop of node.props ?? []) if (prop.type === DIRECTIVE && prop.exp !== undefined) expression(prop.exp.content, prop.exp.loc.start.line);
    for (const child of node.children ?? []) walk(child);
  };
  const template = descriptor.template?.ast as TemplateNode | undefined;
  if (template !== undefined) walk(template);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    const isSource = /\.(?:ts|vue)$/.test(entry.name) && !/\.(?:test|spec)\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts');
    return isSource ? [path] : [];
  });
}

describe('a sentence in code', () => {
  it('is a capitalised literal of three words or more that ends as a sentence', () => {
    expect(isSentence('That took too long, so I stopped.')).toBe(true);
    expect(isSentence('Shall I go ahead?')).toBe(true);
    expect(isSentence('${…} is empty now.')).toBe(true);
    expect(isSentence('${…} from ${…} to ${…}')).toBe(false);
    expect(isSentence('Done.')).toBe(false);
    expect(isSentence('every day at 08:00')).toBe(false);
    expect(isSentence('not a sentence at all.')).toBe(false);
    expect(isSentence('A title without an end')).toBe(false);
  });

  it('is found in a literal or a template, and named by its line', () => {
    const source = ["const a = 'Skip me';", 'const b = `I have added ${item} to your list.`;', 'const c = "Try again in a moment.";'].join('\n');
    expect(sentencesInScript(source)).toEqual([
      { line: 2, text: 'I have added ${…} to your list.' },
      { line: 3, text: 'Try again in a moment.' },
    ]);
  });

  it('is left alone where only a developer, an operator or a model reads it', () => {
    const source = [
      '// A comment says what it likes, here.',
      "throw new Error('The database is closed now.');",
      "reject(new RangeError(`A cap is a whole number, not ${n}.`));",
      "console.warn('Something odd happened here.');",
      "io.out(`Wrote the pins to ${file}.`);",
      "log({ event: 'runs.failed', what: 'The schedule was refused here.' });",
      "const field = z.string().describe('The list, by its kept name.');",
      "const verb = { description: 'Adds things to one of the lists.' };",
      "throw new ConfigError('PORT is not a number; give one.');",
      "class BotFileError extends Error { constructor() { super('The bot file is bad, fix it.'); } }",
    ].join('\n');
    expect(sentencesInScript(source)).toEqual([]);
  });

  it('is left alone where it is marked as written for a model or an MCP client', () => {
    const source = [
      "answers.push({ role: 'tool', content: forModel('Not run: the turn is waiting for an answer.') });",
      'const prompt = forModel(`${summary} Write the new summary.`);',
      "refuse(c, 401, forMcpClient('This MCP token is not valid, or it was revoked.'));",
      "say(words, 'acting.done', { what: 'Something else said here.' });",
    ].join('\n');
    expect(sentencesInScript(source)).toEqual([{ line: 4, text: 'Something else said here.' }]);
  });

  it('is not left alone in an error a person hears', () => {
    expect(sentencesInScript("throw new VerbInputError('Which list? Give it a name.');")).toEqual([{ line: 1, text: 'Which list? Give it a name.' }]);
  });

  it('is found in a Vue template’s text and expressions, and in its script', () => {
    const source = [
      '<script setup lang="ts">',
      "const title = 'Nothing has been said yet.';",
      '</script>',
      '<template>',
      '  <p>Turn the microphone on</p>',
      "  <b :title=\"busy ? 'Still working on it.' : ''\">{{ 'Hello there, you.' }}</b>",
      '  <i>{{ line }}</i> <span>Ok</span> <code>npm run mcp --url</code>',
      '</template>',
    ].join('\n');
    expect(sentencesInVue(source).map((f) => f.line).sort()).toEqual([2, 5, 6, 6]);
  });
});

describe('the code', () => {
  it('says no sentence of its own: each comes from the words files', () => {
    const found = SCANNED.flatMap((root) => sourceFiles(join(ROOT, root))).flatMap((path) => {
      const source = readFileSync(path, 'utf8');
      const sentences = path.endsWith('.vue') ? sentencesInVue(source) : sentencesInScript(source);
      return sentences.map(({ line, text }) => `${relative(ROOT, path)}:${String(line)}: ${text}`);
    });
    expect(found).toEqual([]);
  });
});
