/**
 * Each execution context compiles with its own libraries, so code written for one cannot
 * typecheck in another: `window` is unknown to src/core and common, `document` to workers, `process` to the page.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'confab-contexts-'));

/** Names TypeScript could not find when `source` is compiled under the given tsconfig. */
function unknownNames(tsconfig: string, source: string): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(root, tsconfig), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (!parsed) throw new Error(`could not read ${tsconfig}`);
  const file = join(scratch, `${tsconfig.replaceAll("/", "-")}.probe.ts`);
  writeFileSync(file, `${source}\nexport {};\n`);
  const options = { ...parsed.options, composite: false, declaration: false, emitDeclarationOnly: false, noEmit: true };
  const program = ts.createProgram([file], options);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === file && ([2304, 2580, 2584, 2591].includes(d.code)))
    .map((d) => /'([^']+)'/.exec(ts.flattenDiagnosticMessageText(d.messageText, '\n'))?.[1] ?? '');
}

const probe = [
  'const w = window.location;',
  'const d = document.title;',
  'const p = process.env;',
  'const s = self.postMessage;',
].join('\n');

describe('one tsconfig per execution context', () => {
  it('keeps the DOM, workers and Node out of src/core and common', () => {
    expect(unknownNames('src/core/tsconfig.json', probe).sort()).toEqual(['document', 'process', 'self', 'window']);
    expect(unknownNames('common/tsconfig.json', probe).sort()).toEqual(['document', 'process', 'self', 'window']);
  });

  it('gives the page the DOM but not Node', () => {
    expect(unknownNames('tsconfig.app.json', probe)).toEqual(['process']);
  });

  it('gives workers the worker scope but neither the DOM nor Node', () => {
    expect(unknownNames('tsconfig.workers.json', probe).sort()).toEqual(['document', 'process', 'window']);
  });

  it('gives the server Node but not the DOM', () => {
    expect(unknownNames('tsconfig.server.json', probe).sort()).toEqual(['document', 'self', 'window']);
  });
});
