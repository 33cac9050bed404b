/** Named agents: the list, a new-agent form, and the editor of the one selected. */
import { useState } from 'react';
import { AGENT_NAME_PATTERN, type ReinApi } from '../../../../src-main/core/api/index.js';
import { errorText, toApiError } from '../../api/apiError.js';
import { useAsync } from '../../util/useAsync.js';
import { AgentEditor } from './AgentEditor.js';

const NAME_RULE = AGENT_NAME_PATTERN;

export interface AgentsViewProps {
  api: ReinApi;
  /** Bumped when the daemon says an agent changed, so the list follows other clients' edits. */
  version: number;
  onChanged(): void;
  onChat(agent: string): void;
}

export function AgentsView({ api, version, onChanged, onChat }: AgentsViewProps) {
  const [list, reload] = useAsync(() => api.listAgents(), [api, version]);
  const [selected, setSelected] = useState<string | 'new' | undefined>();
  const agents = list.value?.agents ?? [];

  return (
    <div className="view agents-view split">
      <aside className="split-list" aria-label="Agents">
        <header className="view-head">
          <h1>Agents</h1>
          <button type="button" className="primary" onClick={() => setSelected('new')}>
            New agent
          </button>
        </header>
        {list.status === 'failed' && (
          <p className="form-error" role="alert">
            {list.error.message}
          </p>
        )}
        <ul className="pick-list">
          <li>
            <button type="button" className="pick" disabled title="The built-in agent uses the global config.yaml">
              default <span className="muted">built in</span>
            </button>
          </li>
          {agents.map((a) => (
            <li key={a.name}>
              <button
                type="button"
                className="pick"
                aria-current={selected === a.name ? 'true' : undefined}
                onClick={() => setSelected(a.name)}
              >
                {a.name}
                {a.problem ? (
                  <span className="badge warn" title={a.problem}>
                    broken
                  </span>
                ) : (
                  <span className="muted">
                    {a.command_count ? `${a.command_count} cmd ` : ''}
                    {a.skill_count ? `${a.skill_count} skills` : ''}
                  </span>
                )}
              </button>
            </li>
          ))}
        </ul>
      </aside>
      <section className="split-main">
        {selected === 'new' ? (
          <NewAgent
            api={api}
            taken={agents.map((a) => a.name)}
            onCreated={(name) => {
              reload();
              onChanged();
              setSelected(name);
            }}
            onCancel={() => setSelected(undefined)}
          />
        ) : selected ? (
          <AgentEditor
            key={selected}
            api={api}
            name={selected}
            onSaved={() => {
              reload();
              onChanged();
            }}
            onDeleted={() => {
              setSelected(undefined);
              reload();
              onChanged();
            }}
            onChat={() => onChat(selected)}
          />
        ) : (
          <p className="muted empty-hint">Pick an agent to edit it, or make a new one.</p>
        )}
      </section>
    </div>
  );
}

function NewAgent({
  api,
  taken,
  onCreated,
  onCancel,
}: {
  api: ReinApi;
  taken: string[];
  onCreated(name: string): void;
  onCancel(): void;
}) {
  const [name, setName] = useState('');
  const [prompt, setPrompt] = useState('You are a helpful assistant.\n');
  const [problem, setProblem] = useState<{ field?: string; message: string } | undefined>();
  const [busy, setBusy] = useState(false);
  const nameProblem =
    name === ''
      ? undefined
      : !NAME_RULE.test(name)
        ? 'lowercase letters, digits, - and _ (at most 64), starting with a letter or digit'
        : name === 'default'
          ? '"default" is the built-in agent'
          : taken.includes(name)
            ? 'an agent with this name exists'
            : undefined;

  async function create() {
    setBusy(true);
    setProblem(undefined);
    try {
      await api.createAgent({ name, prompt });
      onCreated(name);
    } catch (e) {
      const err = toApiError(e);
      setProblem({ ...(err.field ? { field: err.field } : {}), message: errorText(err) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      className="new-agent"
      onSubmit={(e) => {
        e.preventDefault();
        void create();
      }}
    >
      <h2>New agent</h2>
      <div className="field">
        <label htmlFor="new-agent-name" className="field-label">
          Name
        </label>
        <input
          id="new-agent-name"
          value={name}
          onChange={(e) => setName(e.target.value.trim())}
          autoFocus
          aria-invalid={nameProblem ? true : undefined}
          aria-describedby="new-agent-name-err"
        />
        {nameProblem && (
          <p id="new-agent-name-err" className="field-error" role="alert">
            {nameProblem}
          </p>
        )}
      </div>
      <div className="field">
        <label htmlFor="new-agent-prompt" className="field-label">
          Persona (AGENT.md)
        </label>
        <textarea id="new-agent-prompt" rows={8} value={prompt} onChange={(e) => setPrompt(e.target.value)} />
      </div>
      {problem && (
        <p className="form-error" role="alert">
          {problem.message}
        </p>
      )}
      <div className="form-actions">
        <button
          type="submit"
          className="primary"
          disabled={busy || !name || nameProblem !== undefined || !prompt.trim()}
        >
          {busy ? 'Creating…' : 'Create'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
