/**
 * Messages that arrive while a run is going (a second chat message, a Slack follow-up). The loop
 * drains them at the top of each iteration and hands them to the model as one user message.
 */
export class Inbox {
  #pending: string[] = [];
  #listeners = new Set<() => void>();

  push(text: string): void {
    const t = text.trim();
    if (!t) return;
    this.#pending.push(t);
    for (const l of this.#listeners) l();
  }

  drain(): string[] {
    const out = this.#pending;
    this.#pending = [];
    return out;
  }

  get size(): number {
    return this.#pending.length;
  }

  onPush(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

export const INJECTED_PREFIX = '[New message from user]';

export function injectedMessageText(texts: readonly string[]): string {
  return `${INJECTED_PREFIX}\n${texts.join('\n\n')}`;
}
