// Reads the labelled corpus: every tests/fixtures/commands/*.tsv (shared by the corpus test, the fuzz test and
// the benchmark). One file per theme keeps additions from colliding.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CorpusRow {
  expected: 'deny' | 'ask' | 'allow';
  command: string;
  note: string;
  line: number;
  /** The file the row comes from (its name, e.g. corpus.tsv). */
  file: string;
}

export const CORPUS_HOME = '/Users/tester';
export const CORPUS_CWD = '/Users/tester/project';

export const corpusDir = fileURLToPath(new URL('../../fixtures/commands/', import.meta.url));
export const corpusPath = join(corpusDir, 'corpus.tsv');

/** Every row of every corpus file, files in name order. */
export function loadCorpus(): CorpusRow[] {
  return readdirSync(corpusDir)
    .filter((f) => f.endsWith('.tsv'))
    .sort()
    .flatMap((f) => loadCorpusFile(join(corpusDir, f)));
}

export function loadCorpusFile(file: string): CorpusRow[] {
  const rows: CorpusRow[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((raw, i) => {
      if (raw === '' || raw.startsWith('#') || raw.startsWith('expected\t')) return;
      const [expected, command, note] = raw.split('\t');
      if ((expected !== 'deny' && expected !== 'ask' && expected !== 'allow') || command === undefined) {
        throw new Error(`${file}:${i + 1}: expected "deny|ask|allow<TAB>command<TAB>note", got ${JSON.stringify(raw)}`);
      }
      rows.push({
        expected,
        command: command.replaceAll('\u23ce', '\n'),
        note: note ?? '',
        line: i + 1,
        file: file.split('/').pop()!,
      });
    });
  return rows;
}
