// Reads tests/fixtures/commands/corpus.tsv (shared by the corpus test, the fuzz test and the benchmark).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface CorpusRow {
  expected: 'deny' | 'ask' | 'allow';
  command: string;
  note: string;
  line: number;
}

export const CORPUS_HOME = '/Users/tester';
export const CORPUS_CWD = '/Users/tester/project';

export const corpusPath = fileURLToPath(new URL('../../fixtures/commands/corpus.tsv', import.meta.url));

export function loadCorpus(file = corpusPath): CorpusRow[] {
  const rows: CorpusRow[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((raw, i) => {
      if (raw === '' || raw.startsWith('#') || raw.startsWith('expected\t')) return;
      const [expected, command, note] = raw.split('\t');
      if ((expected !== 'deny' && expected !== 'ask' && expected !== 'allow') || command === undefined) {
        throw new Error(`${file}:${i + 1}: expected "deny|ask|allow<TAB>command<TAB>note", got ${JSON.stringify(raw)}`);
      }
      rows.push({ expected, command: command.replaceAll('\u23ce', '\n'), note: note ?? '', line: i + 1 });
    });
  return rows;
}
