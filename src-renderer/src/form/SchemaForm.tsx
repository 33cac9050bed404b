/**
 * Renders the fields of schemaForm.ts. Every input is labelled; an error sits right under its field
 * and is tied to it with aria-describedby, so a screen reader reads it with the field.
 */
import { useEffect, useId, useState } from 'react';
import {
  errorsUnder,
  fieldKey,
  getAt,
  pairsToText,
  renameKey,
  setAt,
  textToPairs,
  type Doc,
  type FieldErrors,
  type FieldNode,
  type Path,
} from './schemaForm.js';

export interface SchemaFormProps {
  fields: FieldNode[];
  value: Doc;
  onChange(value: Doc): void;
  errors: FieldErrors;
}

export function SchemaForm({ fields, value, onChange, errors }: SchemaFormProps) {
  return (
    <div className="schema-form">
      {fields.map((f) => (
        <Field key={f.key} node={f} base={[]} root={value} onRoot={onChange} errors={errors} />
      ))}
    </div>
  );
}

interface FieldProps {
  node: FieldNode;
  /** Where the node's relative path starts (a list item, a map entry, or the root). */
  base: Path;
  root: Doc;
  onRoot(value: Doc): void;
  errors: FieldErrors;
}

function Field({ node, base, root, onRoot, errors }: FieldProps) {
  const id = useId();
  const path = [...base, ...node.path];
  const key = fieldKey(path);
  const value = getAt(root, path);
  const set = (v: unknown) => onRoot(setAt(root, path, v) as Doc);
  const own = errors[key];
  const errId = `${id}-err`;
  const helpId = `${id}-help`;
  const describedBy = [own ? errId : '', node.help ? helpId : ''].filter(Boolean).join(' ') || undefined;
  const invalid = own ? true : undefined;

  const label = (
    <label htmlFor={id} className="field-label">
      {node.label}
      {node.required && <span aria-hidden="true"> *</span>}
    </label>
  );
  const help = node.help && (
    <p id={helpId} className="field-help">
      {node.help}
    </p>
  );
  const error = own && (
    <p id={errId} className="field-error" role="alert">
      {own}
    </p>
  );

  switch (node.kind) {
    case 'text':
      return (
        <div className="field" data-field={key}>
          {label}
          <input
            id={id}
            type="text"
            value={typeof value === 'string' ? value : ''}
            onChange={(e) => set(e.target.value === '' ? undefined : e.target.value)}
            aria-invalid={invalid}
            aria-describedby={describedBy}
          />
          {help}
          {error}
        </div>
      );
    case 'number':
      return (
        <div className="field" data-field={key}>
          {label}
          <NumberInput
            id={id}
            value={value}
            integer={node.integer}
            min={node.min}
            max={node.max}
            onChange={set}
            invalid={invalid}
            describedBy={describedBy}
          />
          {help}
          {error}
        </div>
      );
    case 'textOrNumber':
      return (
        <div className="field" data-field={key}>
          {label}
          <input
            id={id}
            type="text"
            value={value === undefined ? '' : String(value)}
            onChange={(e) => {
              const t = e.target.value;
              set(t === '' ? undefined : /^\d+$/.test(t) ? Number(t) : t);
            }}
            aria-invalid={invalid}
            aria-describedby={describedBy}
          />
          {help}
          {error}
        </div>
      );
    case 'boolean':
      return (
        <div className="field" data-field={key}>
          {label}
          <select
            id={id}
            value={value === true ? 'yes' : value === false ? 'no' : ''}
            onChange={(e) => set(e.target.value === '' ? undefined : e.target.value === 'yes')}
            aria-invalid={invalid}
            aria-describedby={describedBy}
          >
            <option value="">(inherit)</option>
            <option value="yes">yes</option>
            <option value="no">no</option>
          </select>
          {help}
          {error}
        </div>
      );
    case 'enum':
      return (
        <div className="field" data-field={key}>
          {label}
          <select
            id={id}
            value={typeof value === 'string' ? value : ''}
            onChange={(e) => set(e.target.value === '' ? undefined : e.target.value)}
            aria-invalid={invalid}
            aria-describedby={describedBy}
          >
            <option value="">(inherit)</option>
            {node.options.map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
          {help}
          {error}
        </div>
      );
    case 'list': {
      const itemErrors = errorsUnder(errors, key).filter((m) => m !== own);
      return (
        <div className="field" data-field={key}>
          {label}
          <LinesInput
            id={id}
            value={Array.isArray(value) ? value.map(String).join('\n') : ''}
            parse={linesToList}
            onChange={set}
            invalid={invalid || (itemErrors.length > 0 ? true : undefined)}
            describedBy={describedBy}
          />
          {help}
          {error}
          {itemErrors.map((m) => (
            <p key={m} className="field-error" role="alert">
              {m}
            </p>
          ))}
        </div>
      );
    }
    case 'pairs':
      return (
        <div className="field" data-field={key}>
          {label}
          <LinesInput
            id={id}
            value={pairsToText(value)}
            parse={textToPairs}
            onChange={set}
            invalid={invalid}
            describedBy={describedBy}
          />
          {help ?? (
            <p className="field-help">
              One <code>NAME=value</code> per line.
            </p>
          )}
          {error}
        </div>
      );
    case 'group':
      return (
        <fieldset className="field-group" data-field={key}>
          <legend>{node.label}</legend>
          {help}
          {error}
          {node.children.map((c) => (
            <Field key={c.key} node={c} base={base} root={root} onRoot={onRoot} errors={errors} />
          ))}
        </fieldset>
      );
    case 'objectList': {
      const items = Array.isArray(value) ? value : [];
      return (
        <fieldset className="field-group" data-field={key}>
          <legend>{node.label}</legend>
          {help}
          {error}
          {items.map((_item, i) => (
            <div className="field-entry" key={i}>
              <div className="entry-head">
                <span className="muted">#{i + 1}</span>
                <button
                  type="button"
                  className="link danger"
                  onClick={() => set(items.length === 1 ? undefined : items.filter((_x, j) => j !== i))}
                >
                  Remove
                </button>
              </div>
              {node.item.map((c) => (
                <Field key={c.key} node={c} base={[...path, i]} root={root} onRoot={onRoot} errors={errors} />
              ))}
            </div>
          ))}
          <button type="button" onClick={() => set([...items, {}])}>
            Add {node.label.toLowerCase().replace(/s$/, '')}
          </button>
        </fieldset>
      );
    }
    case 'objectMap': {
      const entries = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Doc) : {};
      return (
        <fieldset className="field-group" data-field={key}>
          <legend>{node.label}</legend>
          {help}
          {error}
          {Object.keys(entries).map((name, i) => (
            <div className="field-entry" key={i}>
              <div className="entry-head">
                <EntryName
                  name={name}
                  taken={Object.keys(entries)}
                  onRename={(to) => set(renameKey(entries, name, to))}
                />
                <button
                  type="button"
                  className="link danger"
                  onClick={() => {
                    const { [name]: _gone, ...rest } = entries;
                    set(Object.keys(rest).length ? rest : undefined);
                  }}
                >
                  Remove
                </button>
              </div>
              {node.entry.map((c) => (
                <Field key={c.key} node={c} base={[...path, name]} root={root} onRoot={onRoot} errors={errors} />
              ))}
            </div>
          ))}
          <button
            type="button"
            onClick={() => {
              let n = 1;
              while (`server${n}` in entries) n++;
              set({ ...entries, [`server${n}`]: {} });
            }}
          >
            Add entry
          </button>
        </fieldset>
      );
    }
  }
}

/** A number box that lets the user type freely and passes on a number (or undefined when empty). */
function NumberInput(p: {
  id: string;
  value: unknown;
  integer: boolean;
  min?: number;
  max?: number;
  onChange(v: unknown): void;
  invalid?: boolean;
  describedBy?: string;
}) {
  return (
    <input
      id={p.id}
      type="number"
      inputMode={p.integer ? 'numeric' : 'decimal'}
      step={p.integer ? 1 : 'any'}
      min={p.min}
      max={p.max}
      value={typeof p.value === 'number' ? p.value : typeof p.value === 'string' ? p.value : ''}
      onChange={(e) => {
        const t = e.target.value;
        p.onChange(t === '' ? undefined : Number.isNaN(Number(t)) ? t : Number(t));
      }}
      aria-invalid={p.invalid}
      aria-describedby={p.describedBy}
    />
  );
}

/**
 * A text box holding a list (one item per line) or pairs. The text is kept as typed (a trailing new
 * line must survive, or nobody could start the next item); the value passed on is parsed from it.
 */
function LinesInput(p: {
  id: string;
  value: string;
  parse(text: string): unknown;
  onChange(v: unknown): void;
  invalid?: boolean;
  describedBy?: string;
}) {
  const [text, setText] = useState(p.value);
  const [seen, setSeen] = useState(p.value);
  if (p.value !== seen) {
    // Changed from outside (a reload, a reset): show it, unless it is just what the user typed.
    setSeen(p.value);
    if (JSON.stringify(p.parse(text)) !== JSON.stringify(p.parse(p.value))) setText(p.value);
  }
  return (
    <textarea
      id={p.id}
      rows={Math.max(2, Math.min(6, text.split('\n').length + 1))}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        p.onChange(p.parse(e.target.value));
      }}
      aria-invalid={p.invalid}
      aria-describedby={p.describedBy}
    />
  );
}

const linesToList = (t: string): string[] | undefined => {
  const items = parseLines(t);
  return items.length ? items : undefined;
};

const parseLines = (t: string) =>
  t
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');

/** The name of a map entry (an MCP server's name), renamed when the box loses focus. */
function EntryName({ name, taken, onRename }: { name: string; taken: string[]; onRename(to: string): void }) {
  const [draft, setDraft] = useState(name);
  const id = useId();
  useEffect(() => setDraft(name), [name]);
  const clash = draft !== name && taken.includes(draft);
  return (
    <span className="entry-name">
      <label htmlFor={id} className="visually-hidden">
        Name
      </label>
      <input
        id={id}
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={() => {
          if (draft && !clash && draft !== name) onRename(draft);
          else setDraft(name);
        }}
        aria-invalid={clash || undefined}
      />
    </span>
  );
}
