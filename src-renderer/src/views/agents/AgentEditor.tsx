/**
 * One agent's files, edited in tabs: persona (AGENT.md, with a preview), config (a form generated
 * from the config schema, or the YAML itself), memory (MEMORY.md), attached skills and commands.
 * One Save sends only what changed; the daemon checks all of it before it writes anything, and its
 * field errors are shown on the fields they name. Invalid input never reaches disk.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import {
  NAME_PATTERN,
  type AgentDetail,
  type ReinApi,
  type SaveAgentInput,
} from '../../../../src-main/core/api/index.js';
import { errorText, fieldProblems, toApiError } from '../../api/apiError.js';
import agentConfigSchema from '../../form/agentConfig.schema.json';
import { agentConfigHelp } from '../../form/agentConfigHelp.js';
import { SchemaForm } from '../../form/SchemaForm.js';
import {
  buildFields,
  cleanValue,
  validatorFor,
  type Doc,
  type FieldErrors,
  type JsonSchema,
} from '../../form/schemaForm.js';
import { MessageText } from '../../markdown/MessageText.js';
import { formatWhen } from '../../util/format.js';
import { useAsync } from '../../util/useAsync.js';
import { McpServersPanel } from '../mcp/McpServersPanel.js';

const schema = agentConfigSchema as JsonSchema;
const configFields = buildFields(schema, agentConfigHelp);
let validateConfig: ((v: unknown) => FieldErrors) | undefined;
const checkConfig = (v: unknown) => (validateConfig ??= validatorFor(schema))(v);

type Tab = 'persona' | 'config' | 'memory' | 'skills' | 'commands' | 'activity' | 'mcp';
const TABS: { id: Tab; label: string }[] = [
  { id: 'persona', label: 'Persona' },
  { id: 'config', label: 'Config' },
  { id: 'memory', label: 'Memory' },
  { id: 'skills', label: 'Skills' },
  { id: 'commands', label: 'Commands' },
  { id: 'activity', label: 'Activity' },
  { id: 'mcp', label: 'MCP servers' },
];

interface Draft {
  prompt: string;
  memory: string;
  configMode: 'form' | 'yaml';
  configDoc: Doc;
  configText: string;
  configTouched: boolean;
  commands: Record<string, string>;
  skills: string[];
}

type Problem = NonNullable<AgentDetail['problems']>[number];

/** The tab where a problem in `file` (relative to the agent's folder) is fixed, if any. */
export function tabOfFile(file: string): Tab | undefined {
  if (file === 'AGENT.md') return 'persona';
  if (file === 'config.yaml') return 'config';
  if (file === 'MEMORY.md') return 'memory';
  if (file === '_attached.yaml') return 'skills';
  if (file === 'commands' || file.startsWith('commands/')) return 'commands';
  return undefined;
}

/** Files the daemon refuses to run an agent without (a bad command or skill is only left out). */
const BLOCKING_FILES = ['AGENT.md', 'config.yaml', '_attached.yaml'];

/** config.yaml exists but does not validate: the form cannot show it, only the YAML can. */
const configBroken = (a: AgentDetail) =>
  a.config === null && a.config_text !== null && (a.problems ?? []).some((p) => p.file === 'config.yaml');

export function problemText(p: Problem): string {
  const where = p.line !== undefined ? `${p.file}, line ${p.line}` : p.file;
  return `${where}: ${p.field ? `${p.field}: ` : ''}${p.message}`;
}

const draftOf = (a: AgentDetail): Draft => ({
  prompt: a.prompt,
  memory: a.memory ?? '',
  configMode: configBroken(a) ? 'yaml' : 'form',
  configDoc: (a.config ?? {}) as Doc,
  configText: a.config_text ?? '',
  configTouched: false,
  commands: { ...a.commands },
  skills: [...a.skills],
});

export interface AgentEditorProps {
  api: ReinApi;
  name: string;
  onSaved(): void;
  onDeleted(): void;
  onChat(): void;
}

export function AgentEditor({ api, name, onSaved, onDeleted, onChat }: AgentEditorProps) {
  const [loaded, reload] = useAsync(() => api.getAgent({ name }), [api, name]);
  const [draft, setDraft] = useState<Draft | undefined>();
  const [base, setBase] = useState<AgentDetail | undefined>();
  const [tab, setTab] = useState<Tab | undefined>();
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const panel = useRef<HTMLDivElement>(null);

  // After a refused save, take the keyboard to the first field the daemon named.
  useEffect(() => {
    const first = Object.keys(serverErrors).find((k) => k !== '');
    if (!first || !panel.current) return;
    const field = panel.current.querySelector<HTMLElement>(
      `[data-field="${CSS.escape(first)}"] :is(input, select, textarea)`,
    );
    field?.focus();
    field?.scrollIntoView({ block: 'center' });
  }, [serverErrors]);

  if (loaded.status === 'ready' && loaded.value !== base) {
    setBase(loaded.value);
    setDraft(draftOf(loaded.value));
  }
  // A broken agent opens on the tab of its first problem.
  const firstProblemTab = (base?.problems ?? []).map((p) => tabOfFile(p.file)).find((t) => t !== undefined);
  const currentTab: Tab = tab ?? firstProblemTab ?? 'persona';

  const clientErrors = useMemo(
    () =>
      draft && draft.configTouched && draft.configMode === 'form'
        ? checkConfig(cleanValue(draft.configDoc, schema) ?? {})
        : {},
    [draft],
  );

  if (loaded.status === 'failed' && !base) {
    return (
      <p className="form-error" role="alert">
        Cannot open {name}: {loaded.error.message}
      </p>
    );
  }
  if (!draft || !base) return <p className="muted">Loading {name}…</p>;

  const update = (patch: Partial<Draft>) => {
    setDraft({ ...draft, ...patch });
    setSaved(false);
  };
  const problems = base.problems ?? [];
  const problemCount = (t: Tab) => problems.filter((p) => tabOfFile(p.file) === t).length;
  const changes = changesOf(base, draft);
  const errors = { ...serverErrors, ...clientErrors };
  const dirty = Object.keys(changes).length > 1;

  async function save() {
    if (Object.keys(clientErrors).length > 0) {
      setTab('config');
      setProblem('Fix the marked config fields first.');
      return;
    }
    setBusy(true);
    setProblem(undefined);
    setServerErrors({});
    try {
      await api.saveAgent(changes);
      setSaved(true);
      onSaved();
      reload();
    } catch (e) {
      const err = toApiError(e);
      const fields = fieldProblems(err.message, 'config');
      if (Object.keys(fields).length > 0) {
        setServerErrors(fields);
        setTab('config');
      }
      setProblem(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="agent-editor">
      <header className="editor-head">
        <h2>{name}</h2>
        <div className="editor-actions">
          <button type="button" onClick={onChat}>
            Chat
          </button>
          <button type="button" className="primary" disabled={!dirty || busy} onClick={() => void save()}>
            {busy ? 'Saving…' : 'Save'}
          </button>
        </div>
      </header>
      <div role="tablist" aria-label={`${name} files`} className="tabs">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={currentTab === t.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={currentTab === t.id ? 0 : -1}
            onClick={() => setTab(t.id)}
            onKeyDown={(e) => {
              const i = TABS.findIndex((x) => x.id === currentTab);
              if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
                const next = TABS[(i + (e.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length]!;
                setTab(next.id);
                document.getElementById(`tab-${next.id}`)?.focus();
              }
            }}
          >
            {t.label}
            {t.id === 'config' && Object.keys(errors).length > 0 && (
              <span className="badge warn">{Object.keys(errors).length}</span>
            )}
            {!(t.id === 'config' && Object.keys(errors).length > 0) && problemCount(t.id) > 0 && (
              <span className="badge warn" title="Problems in this part">
                {problemCount(t.id)}
              </span>
            )}
          </button>
        ))}
      </div>
      {problems.length > 0 && (
        <section className="file-problems" role="alert" aria-label="Problems in this agent's files">
          <p>
            {problems.some((p) => BLOCKING_FILES.includes(p.file)) ? (
              <>
                <strong>{name}</strong> cannot run until {problems.length === 1 ? 'this is' : 'these are'} fixed.
                Correct {problems.length === 1 ? 'it' : 'them'} here and save:
              </>
            ) : (
              <>
                Some of <strong>{name}</strong>'s files have problems (it still runs without them):
              </>
            )}
          </p>
          <ul>
            {problems.map((p, i) => {
              const to = tabOfFile(p.file);
              return (
                <li key={i}>
                  {to ? (
                    <button type="button" className="link" onClick={() => setTab(to)}>
                      {problemText(p)}
                    </button>
                  ) : (
                    problemText(p)
                  )}
                </li>
              );
            })}
          </ul>
        </section>
      )}
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      {saved && !dirty && (
        <p className="form-ok" role="status">
          Saved.
        </p>
      )}
      <div
        role="tabpanel"
        id={`panel-${currentTab}`}
        aria-labelledby={`tab-${currentTab}`}
        className="tab-panel"
        ref={panel}
      >
        {currentTab === 'persona' && <PersonaTab text={draft.prompt} onChange={(prompt) => update({ prompt })} />}
        {currentTab === 'config' && (
          <ConfigTab
            draft={draft}
            update={update}
            errors={errors}
            fileProblems={draft.configTouched ? [] : problems.filter((p) => p.file === 'config.yaml')}
            formAvailable={!configBroken(base)}
            clearServer={() => setServerErrors({})}
          />
        )}
        {currentTab === 'memory' && (
          <div className="field">
            <label htmlFor="agent-memory" className="field-label">
              MEMORY.md
            </label>
            <p className="field-help" id="agent-memory-help">
              What {name} remembers between conversations. It adds to it with its memory tool; you can correct it here.
            </p>
            <textarea
              id="agent-memory"
              className="code-area"
              rows={18}
              value={draft.memory}
              onChange={(e) => update({ memory: e.target.value })}
              aria-describedby="agent-memory-help"
            />
          </div>
        )}
        {currentTab === 'skills' && (
          <SkillsTab api={api} attached={draft.skills} onChange={(skills) => update({ skills })} />
        )}
        {currentTab === 'commands' && (
          <CommandsTab commands={draft.commands} onChange={(commands) => update({ commands })} />
        )}
        {currentTab === 'activity' && <ActivityTab api={api} name={name} />}
        {currentTab === 'mcp' && <McpServersPanel api={api} agent={name} scope="agent" />}
      </div>
      <DeleteAgent api={api} name={name} onDeleted={onDeleted} />
    </div>
  );
}

/** The save request: the name plus each part that differs from what was loaded. */
export function changesOf(base: AgentDetail, d: Draft): SaveAgentInput {
  const out: SaveAgentInput = { name: base.name };
  if (d.prompt !== base.prompt) out.prompt = d.prompt;
  if (d.memory !== (base.memory ?? '')) out.memory = d.memory;
  if (d.configTouched) {
    if (d.configMode === 'yaml') out.config = d.configText.trim() ? d.configText : null;
    else out.config = (cleanValue(d.configDoc, schema) as Record<string, unknown> | undefined) ?? null;
  }
  const commands: Record<string, string | null> = {};
  for (const [n, t] of Object.entries(d.commands)) if (base.commands[n] !== t) commands[n] = t;
  for (const n of Object.keys(base.commands)) if (!(n in d.commands)) commands[n] = null;
  if (Object.keys(commands).length) out.commands = commands;
  if (d.skills.join('\n') !== base.skills.join('\n')) out.skills = d.skills;
  return out;
}

/** What the agent does on its own: its heartbeat (next and last beat, today's spend) and its file watchers. */
function ActivityTab({ api, name }: { api: ReinApi; name: string }) {
  const [activity] = useAsync(() => api.agentActivity({ name }), [api, name]);
  if (activity.status === 'failed') return <p className="form-error">{activity.error.message}</p>;
  const a = activity.value;
  if (!a) return <p className="muted">Loading…</p>;
  const hb = a.heartbeat;
  return (
    <div className="activity-tab">
      {a.problem && <p className="muted">{a.problem}</p>}
      <section aria-label="Heartbeat">
        <h3>Heartbeat</h3>
        {!hb ? (
          <p className="muted">
            No heartbeat. Add{' '}
            <code>
              heartbeat: {'{'} every: 30m {'}'}
            </code>{' '}
            to the config and goals to HEARTBEAT.md.
          </p>
        ) : (
          <dl className="facts">
            <dt>Every</dt>
            <dd>
              {hb.every}
              {hb.active_hours ? `, between ${hb.active_hours}` : ''} · model {hb.model}
            </dd>
            <dt>Goals</dt>
            <dd>{hb.has_goals ? 'HEARTBEAT.md' : 'HEARTBEAT.md is missing or empty: beats spend nothing'}</dd>
            <dt>Next beat</dt>
            <dd>
              {hb.next_at
                ? formatWhen(hb.next_at)
                : 'not scheduled (outside active hours, or the daemon is not running)'}
            </dd>
            <dt>Last beat</dt>
            <dd>
              {hb.last
                ? `${formatWhen(hb.last.at)}: ${hb.last.outcome}${hb.last.message ? ` — ${hb.last.message}` : ''} (${hb.last.total_input_tokens} tokens, ${Math.round(hb.last.cache_read_share * 100)}% cached, $${hb.last.cost_usd.toFixed(4)})`
                : 'none yet'}
            </dd>
            <dt>Today</dt>
            <dd>
              {hb.beats_today} beat(s), ${hb.spent_today_usd.toFixed(4)}
            </dd>
          </dl>
        )}
      </section>
      <section aria-label="File watchers">
        <h3>File watchers</h3>
        {a.watchers.length === 0 ? (
          <p className="muted">No watched folders.</p>
        ) : (
          <ul className="watch-list">
            {a.watchers.map((w) => (
              <li key={`${w.path}${w.glob ?? ''}`}>
                <code>{w.path}</code>
                {w.glob ? ` · ${w.glob}` : ''} · {w.debounce_ms} ms ·{' '}
                {w.watching
                  ? 'watching'
                  : w.reason
                    ? `not watched: ${w.reason}`
                    : 'not watched (the folder is missing, or the daemon is not running)'}
                {w.state === 'unreadable' && w.hint && <p className="form-error">{w.hint}</p>}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function PersonaTab({ text, onChange }: { text: string; onChange(t: string): void }) {
  return (
    <div className="persona-tab">
      <div className="field">
        <label htmlFor="agent-prompt" className="field-label">
          AGENT.md
        </label>
        <textarea
          id="agent-prompt"
          className="code-area"
          rows={20}
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      </div>
      <section className="preview" aria-label="Preview">
        <h3 className="field-label">Preview</h3>
        <MessageText text={text} />
      </section>
    </div>
  );
}

function ConfigTab({
  draft,
  update,
  errors,
  fileProblems,
  formAvailable,
  clearServer,
}: {
  draft: Draft;
  update(p: Partial<Draft>): void;
  errors: FieldErrors;
  /** Problems of config.yaml as it is on disk (until the text is edited). */
  fileProblems: Problem[];
  /** False while config.yaml on disk does not validate: the form would start empty and replace it. */
  formAvailable: boolean;
  clearServer(): void;
}) {
  const errorList = Object.entries(errors);
  return (
    <div className="config-tab">
      <div className="segmented" role="radiogroup" aria-label="Edit config as">
        {(['form', 'yaml'] as const).map((m) => (
          <label
            key={m}
            title={
              m === 'form' && !formAvailable
                ? 'Fix config.yaml as YAML first: the form cannot show a file with problems'
                : undefined
            }
          >
            <input
              type="radio"
              name="config-mode"
              checked={draft.configMode === m}
              disabled={m === 'form' && !formAvailable}
              onChange={() => update({ configMode: m })}
            />
            {m === 'form' ? 'Form' : 'YAML'}
          </label>
        ))}
      </div>
      <p className="field-help">Empty fields inherit the global config.yaml.</p>
      {draft.configMode === 'form' ? (
        <SchemaForm
          fields={configFields}
          value={draft.configDoc}
          errors={errors}
          onChange={(configDoc) => {
            clearServer();
            update({ configDoc, configTouched: true });
          }}
        />
      ) : (
        <div className="field">
          <label htmlFor="agent-config-yaml" className="field-label">
            config.yaml
          </label>
          <textarea
            id="agent-config-yaml"
            className="code-area"
            rows={18}
            spellCheck={false}
            value={draft.configText}
            onChange={(e) => {
              clearServer();
              update({ configText: e.target.value, configTouched: true });
            }}
          />
          {errorList.map(([k, m]) => (
            <p key={k} className="field-error" role="alert">
              {k ? `${k}: ` : ''}
              {m}
            </p>
          ))}
          {fileProblems.map((p, i) => (
            <p key={`file-${i}`} className="field-error">
              {p.line !== undefined ? `line ${p.line}: ` : ''}
              {p.field ? `${p.field}: ` : ''}
              {p.message}
            </p>
          ))}
        </div>
      )}
    </div>
  );
}

function SkillsTab({ api, attached, onChange }: { api: ReinApi; attached: string[]; onChange(s: string[]): void }) {
  // The default agent sees every global skill: that list is what can be attached.
  const [skills] = useAsync(() => api.listSkills(), [api]);
  const global = (skills.value?.skills ?? []).filter((s) => s.source === 'user');
  const missing = attached.filter((n) => !global.some((s) => s.name === n));
  return (
    <fieldset className="skills-tab">
      <legend>Attached global skills</legend>
      {skills.status === 'failed' && <p className="form-error">{skills.error.message}</p>}
      {global.length === 0 && skills.status === 'ready' && (
        <p className="muted">No global skills yet: put them in ~/.rein/skills/&lt;name&gt;/SKILL.md.</p>
      )}
      {global.map((s) => (
        <label key={s.name} className="check-row">
          <input
            type="checkbox"
            checked={attached.includes(s.name)}
            onChange={(e) => onChange(e.target.checked ? [...attached, s.name] : attached.filter((n) => n !== s.name))}
          />
          <span>
            <code>{s.name}</code> <span className="muted">{s.description}</span>
          </span>
        </label>
      ))}
      {missing.map((n) => (
        <label key={n} className="check-row">
          <input type="checkbox" checked onChange={() => onChange(attached.filter((x) => x !== n))} />
          <span>
            <code>{n}</code> <span className="badge warn">not found</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

const COMMAND_NAME = NAME_PATTERN;

function CommandsTab({
  commands,
  onChange,
}: {
  commands: Record<string, string>;
  onChange(c: Record<string, string>): void;
}) {
  const [newName, setNewName] = useState('');
  const names = Object.keys(commands).sort();
  const nameProblem =
    newName && !COMMAND_NAME.test(newName)
      ? 'lowercase letters, digits, - and _'
      : newName in commands
        ? 'already exists'
        : undefined;
  return (
    <div className="commands-tab">
      <p className="field-help">
        Each command is a prompt template run as <code>/name args</code> in the chat. <code>$ARGUMENTS</code> is
        everything after the name, <code>$1</code>, <code>$2</code>… its words.
      </p>
      {names.map((n) => (
        <div className="field command-entry" key={n}>
          <div className="entry-head">
            <label htmlFor={`cmd-${n}`} className="field-label">
              /{n}
            </label>
            <button
              type="button"
              className="link danger"
              onClick={() => {
                const { [n]: _gone, ...rest } = commands;
                onChange(rest);
              }}
            >
              Delete
            </button>
          </div>
          <textarea
            id={`cmd-${n}`}
            className="code-area"
            rows={4}
            value={commands[n]}
            onChange={(e) => onChange({ ...commands, [n]: e.target.value })}
          />
        </div>
      ))}
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!newName || nameProblem) return;
          onChange({ ...commands, [newName]: 'Describe what /' + newName + ' should do with: $ARGUMENTS' });
          setNewName('');
        }}
      >
        <label htmlFor="new-command" className="field-label">
          New command
        </label>
        <input
          id="new-command"
          value={newName}
          placeholder="name"
          onChange={(e) => setNewName(e.target.value.trim())}
          aria-invalid={nameProblem ? true : undefined}
        />
        <button type="submit" disabled={!newName || nameProblem !== undefined}>
          Add
        </button>
        {nameProblem && <span className="field-error">{nameProblem}</span>}
      </form>
    </div>
  );
}

function DeleteAgent({ api, name, onDeleted }: { api: ReinApi; name: string; onDeleted(): void }) {
  const [asking, setAsking] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  return (
    <section className="danger-zone" aria-label="Delete agent">
      {!asking ? (
        <button type="button" className="link danger" onClick={() => setAsking(true)}>
          Delete {name}…
        </button>
      ) : (
        <div role="alertdialog" aria-label={`Delete ${name}?`} className="confirm">
          <p>
            Delete <strong>{name}</strong>? Its folder moves to the trash and its running answers stop.
          </p>
          <button
            type="button"
            className="danger"
            autoFocus
            onClick={() => {
              api.deleteAgent({ name }).then(onDeleted, (e: unknown) => setProblem(errorText(e)));
            }}
          >
            Delete
          </button>
          <button type="button" onClick={() => setAsking(false)}>
            Cancel
          </button>
          {problem && (
            <p className="form-error" role="alert">
              {problem}
            </p>
          )}
        </div>
      )}
    </section>
  );
}
