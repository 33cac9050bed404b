/**
 * Where the user writes. Keyboard first: Enter sends, Shift+Enter starts a new line, Esc stops the
 * running answer, ↑ in an empty box brings back the last message to edit. Typing `/` offers the
 * agent's commands (↑/↓ to choose, Tab or Enter to take one).
 */
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { suggestCommands } from './slash.js';

export interface ComposerProps {
  running: boolean;
  disabled?: boolean;
  /** Command name → one-line description. */
  commands: Record<string, string>;
  lastUserText?: string;
  onSend(text: string): void;
  onStop(): void;
  /** Bumped by the parent to put the caret back in the box (after switching agent, a new chat…). */
  focusKey?: unknown;
}

export function Composer(p: ComposerProps) {
  const [text, setText] = useState('');
  const [choice, setChoice] = useState(0);
  const [dismissed, setDismissed] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const listId = useId();

  const suggestions = dismissed ? [] : suggestCommands(text, Object.keys(p.commands));
  const open = suggestions.length > 0;

  useEffect(() => {
    box.current?.focus();
  }, [p.focusKey]);

  function send() {
    const t = text.trim();
    if (!t || p.disabled) return;
    p.onSend(t);
    setText('');
  }

  function take(name: string) {
    setText(`/${name} `);
    setDismissed(true);
  }

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.nativeEvent.isComposing) return;
    if (open) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const step = e.key === 'ArrowDown' ? 1 : -1;
        setChoice((c) => (c + step + suggestions.length) % suggestions.length);
        return;
      }
      if (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey)) {
        e.preventDefault();
        take(suggestions[Math.min(choice, suggestions.length - 1)]!);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        setDismissed(true);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      send();
    } else if (e.key === 'Escape' && p.running) {
      e.preventDefault();
      p.onStop();
    } else if (e.key === 'ArrowUp' && text === '' && p.lastUserText) {
      e.preventDefault();
      setText(p.lastUserText);
    }
  }

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      {open && (
        <ul className="slash-list" id={listId} role="listbox" aria-label="Commands">
          {suggestions.map((name, i) => (
            <li
              key={name}
              role="option"
              aria-selected={i === choice}
              className={i === choice ? 'selected' : undefined}
              onMouseDown={(e) => {
                e.preventDefault();
                take(name);
                box.current?.focus();
              }}
            >
              <code>/{name}</code> <span className="muted">{p.commands[name]}</span>
            </li>
          ))}
        </ul>
      )}
      <textarea
        ref={box}
        value={text}
        rows={Math.min(8, Math.max(2, text.split('\n').length))}
        placeholder={
          p.running
            ? 'Add to the running answer…  (Esc stops)'
            : 'Message  (Enter sends, Shift+Enter new line, / for commands)'
        }
        aria-label="Message"
        aria-autocomplete="list"
        aria-controls={open ? listId : undefined}
        aria-expanded={open}
        onChange={(e) => {
          setText(e.target.value);
          setChoice(0);
          setDismissed(false);
        }}
        onKeyDown={onKeyDown}
      />
      <div className="composer-actions">
        {p.running && (
          <button type="button" className="danger" onClick={p.onStop} title="Stop (Esc)">
            Stop
          </button>
        )}
        <button type="submit" className="primary" disabled={!text.trim() || p.disabled}>
          {p.running ? 'Send into run' : 'Send'}
        </button>
      </div>
    </form>
  );
}
