/** What a web call is about and what its result found, so calls on one topic compare as one. */

const FILLER_WORDS = new Set([
  'today',
  'yesterday',
  'latest',
  'recent',
  'top',
  'major',
  'breaking',
  'headlines',
  'news',
  'current',
  'update',
  'updates',
]);
const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const DATE_PATTERNS = [
  /\b\d{4}-\d{2}-\d{2}\b/g,
  new RegExp(`\\b${MONTH}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}\\b`, 'gi'),
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)?\\s+${MONTH}\\.?,?\\s+\\d{4}\\b`, 'gi'),
  /\b20\d{2}\b/g,
];

/**
 * What a web call is about, so "AI news today" and "latest AI news 2025" count as one topic. URLs are
 * compared verbatim. Undefined when the input names no query or URL.
 */
export function webTopic(input: unknown): string | undefined {
  if (input === null || typeof input !== 'object') return undefined;
  const rec = input as Record<string, unknown>;
  for (const key of ['query', 'q', 'queries', 'url', 'urls']) {
    let value = rec[key];
    if (Array.isArray(value)) value = value[0];
    if (typeof value !== 'string' || value.trim() === '') continue;
    if (key === 'url' || key === 'urls') return value.trim();
    let text = value;
    for (const re of DATE_PATTERNS) text = text.replace(re, ' ');
    const tokens = text
      .split(/\s+/)
      .map((t) => t.replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, '').toLowerCase())
      .filter((t) => [...t].length >= 2 && !FILLER_WORDS.has(t));
    return tokens.length === 0 ? '[empty]' : tokens.sort().join(' ');
  }
  return undefined;
}

/** The set of URLs a result mentions (without query, fragment, trailing punctuation): same set = same findings. */
export function resultUrls(content: string): string {
  const urls = new Set<string>();
  for (const m of content.matchAll(/https?:\/\/[^\s"'<>()[\]{}]+/gi)) {
    const url = m[0]
      .replace(/[?#].*$/, '')
      .replace(/[.,;:!?]+$/, '')
      .toLowerCase();
    urls.add(url);
  }
  return [...urls].sort().join(',');
}
