/** Chinese, Japanese and Korean script detection: these languages write words without spaces between them. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export function hasCjk(text: string): boolean {
  return CJK.test(text);
}
