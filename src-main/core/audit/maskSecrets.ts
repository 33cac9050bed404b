/**
 * Hides credentials in text that is about to be written somewhere people read (the audit log). It errs
 * on the side of masking: a hidden harmless string costs nothing, a leaked key costs a rotation.
 */
export const MASK = '[REDACTED]';

/** Keeps the quotes around a masked value, so a masked JSON summary still reads as JSON. */
function maskValue(value: string): string {
  if (value.startsWith('\\"')) return `\\"${MASK}\\"`;
  if (value.startsWith('"')) return `"${MASK}"`;
  if (value.startsWith("'")) return `'${MASK}'`;
  return MASK;
}

const SECRET_NAMES =
  '(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|authorization|credentials?)';

/** In order: assignments first, so a key-shaped value inside one is not masked twice. */
const RULES: ReadonlyArray<[RegExp, (match: string, ...groups: string[]) => string]> = [
  // PEM private keys, whole block (or to the end of the text when it was cut off).
  [
    /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
    () => `${MASK} private key`,
  ],
  // name = value, name: value, "name":"value", \"name\":\"value\" (a JSON summary of a command line).
  [
    new RegExp(
      `(${SECRET_NAMES}(?:\\\\?["'])?\\s*[:=]\\s*)(\\\\"(?:[^"\\\\]|\\\\[^"])*?\\\\"|"(?:[^"\\\\]|\\\\.)*"|'[^']*'|(?:Bearer|Basic)\\s+[^\\s"'&,;})\\]\\\\]+|[^\\s"'&,;})\\]\\\\]+)`,
      'gi',
    ),
    (_m, lead = '', value = '') => `${lead}${maskValue(value)}`,
  ],
  // --password value, --token value
  [
    /(--?(?:password|passwd|token|secret|api-key|access-key)\s+)("[^"]*"|'[^']*'|[^\s"']+)/gi,
    (_m, lead = '', value = '') => `${lead}${maskValue(value)}`,
  ],
  // Authorization header values.
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, (_m, scheme = '') => `${scheme} ${MASK}`],
  // user:password@host in URLs.
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/]+:)[^\s@/]+@/gi, (_m, lead = '') => `${lead}${MASK}@`],
  // Anthropic (sk-ant-…) and OpenAI (sk-…, sk-proj-…) keys.
  [/\bsk-[A-Za-z0-9_-]{16,}/g, () => MASK],
  // Mailgun-style key-…
  [/\bkey-[A-Za-z0-9]{20,}/g, () => MASK],
  // AWS access key ids.
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, () => MASK],
  // GitHub tokens: classic (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained.
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, () => MASK],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/g, () => MASK],
  // Slack tokens.
  [/\bxox[abposr]-[A-Za-z0-9-]{8,}/g, () => MASK],
  // JSON Web Tokens.
  [/\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, () => MASK],
];

export function maskSecrets(text: string): string {
  let out = text;
  for (const [re, replace] of RULES) out = out.replace(re, replace as (m: string, ...rest: unknown[]) => string);
  return out;
}

const SECRET_KEY = new RegExp(`^${SECRET_NAMES}$`, 'i');
/** Inputs deeper or larger than this are cut: an approval card shows what a person can read. */
const MASK_MAX_DEPTH = 8;
const MASK_MAX_STRING = 20_000;

/**
 * A copy of a structured value (a tool call's input) with credentials masked: every string through
 * maskSecrets, and the whole value of a field named like a secret (`api_key`, `password`, `token`…).
 * For showing an input to people (approval cards, dialogs); the call itself runs with the real input.
 */
export function maskSecretsIn(value: unknown, depth = 0): unknown {
  if (typeof value === 'string')
    return maskSecrets(value.length > MASK_MAX_STRING ? `${value.slice(0, MASK_MAX_STRING)}…` : value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MASK_MAX_DEPTH) return '…';
  if (Array.isArray(value)) return value.map((v) => maskSecretsIn(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_KEY.test(k) && v !== null && v !== undefined && v !== '' ? MASK : maskSecretsIn(v, depth + 1);
  }
  return out;
}
