import { describe, expect, it } from 'vitest';
import { charCount, ftsString, likePattern, planQuery, splitTerms } from '../../../src-main/core/search/query.js';

describe('planQuery', () => {
  it('quotes every term for FTS5 so operators and punctuation are plain text', () => {
    expect(planQuery('deploy AND staging')).toEqual({
      terms: ['deploy', 'AND', 'staging'],
      words: '"deploy" "AND" "staging"',
      substrings: '"deploy" "AND" "staging"',
      likes: [],
    });
    expect(planQuery('key:value foo-bar')?.words).toBe('"key:value" "foo-bar"');
  });

  it('keeps "double-quoted phrases" together and drops stray quotes', () => {
    expect(splitTerms('"make test" now')).toEqual(['make test', 'now']);
    expect(splitTerms('say "hello')).toEqual(['say', 'hello']);
    expect(splitTerms('""  "  " x')).toEqual(['x']);
    expect(ftsString('a "b" c')).toBe('"a ""b"" c"');
  });

  it('skips the words stage for symbols the word tokenizer would drop, and for CJK', () => {
    expect(planQuery('C++')).toEqual({ terms: ['C++'], substrings: '"C++"', likes: [] });
    expect(planQuery('$HOME')?.words).toBeUndefined();
    expect(planQuery('数据库 migration')?.words).toBeUndefined();
    expect(planQuery('数据库 migration')?.substrings).toBe('"数据库" "migration"');
  });

  it('sends terms shorter than three characters (counted as characters) to LIKE', () => {
    expect(planQuery('数据')).toEqual({ terms: ['数据'], likes: ['%数据%'] });
    expect(planQuery('go')).toEqual({ terms: ['go'], words: '"go"', likes: ['%go%'] });
    expect(planQuery('整理一下 数据')).toEqual({
      terms: ['整理一下', '数据'],
      substrings: '"整理一下"',
      likes: ['%数据%'],
    });
    expect(charCount('🙂🙂')).toBe(2);
    expect(planQuery('🙂🙂')?.likes).toEqual(['%🙂🙂%']);
  });

  it('escapes LIKE wildcards', () => {
    expect(likePattern('5%_\\')).toBe('%5\\%\\_\\\\%');
  });

  it('marks the last term as a prefix only when asked', () => {
    expect(planQuery('plan deplo', { prefix: true })?.words).toBe('"plan" "deplo"*');
    expect(planQuery('plan deplo')?.words).toBe('"plan" "deplo"');
  });

  it('finds nothing to search in blank input', () => {
    expect(planQuery('')).toBeUndefined();
    expect(planQuery(' \n\t ')).toBeUndefined();
  });
});
