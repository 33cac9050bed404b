/**
 * The views, as a sidebar: names with icons in a wide window, icons only below NARROW_WIDTH (each keeps
 * its name for screen readers and as a tooltip), with a toggle that expands it over the content.
 * Keyboard: every item and the toggle are buttons; Esc folds an expanded narrow sidebar back.
 */
import { useEffect, useReducer, useRef, type ReactNode } from 'react';
import { initialSidebar, NARROW_QUERY, sidebarCollapsed, sidebarOverlays, sidebarReducer } from '../../state/layout.js';

export interface SidebarItem<Id extends string> {
  id: Id;
  label: string;
  /** Alt+key opens it. */
  key: string;
  icon: ReactNode;
}

export interface SidebarProps<Id extends string> {
  items: readonly SidebarItem<Id>[];
  current: Id;
  onPick(id: Id): void;
  /** Shown on the item as a count badge (approvals waiting). */
  counts?: Partial<Record<Id, number>>;
  toggleIcon: ReactNode;
}

/** Whether a media query matches, following it; false where there is no window (server rendering, tests). */
export function useMediaQuery(query: string): boolean {
  const list =
    typeof window !== 'undefined' && typeof window.matchMedia === 'function' ? window.matchMedia(query) : undefined;
  const [matches, setMatches] = useReducer((_: boolean, next: boolean) => next, list?.matches ?? false);
  useEffect(() => {
    if (!list) return;
    const on = () => setMatches(list.matches);
    on();
    list.addEventListener('change', on);
    return () => list.removeEventListener('change', on);
  }, [list?.media]);
  return matches;
}

export function Sidebar<Id extends string>({ items, current, onPick, counts, toggleIcon }: SidebarProps<Id>) {
  const narrow = useMediaQuery(NARROW_QUERY);
  const [state, dispatch] = useReducer(sidebarReducer, narrow, initialSidebar);
  const toggle = useRef<HTMLButtonElement>(null);
  useEffect(() => dispatch({ type: 'width', narrow }), [narrow]);

  const collapsed = sidebarCollapsed(state);
  const overlays = sidebarOverlays(state);
  const dismiss = () => {
    dispatch({ type: 'dismiss' });
    toggle.current?.focus();
  };

  return (
    // Expanded over the content, the sidebar leaves its narrow column as it is: the view does not move.
    <div className={`sidebar-slot${collapsed || overlays ? ' collapsed' : ''}`}>
      <nav
        className={`sidebar${collapsed ? ' collapsed' : ''}${overlays ? ' overlay' : ''}`}
        aria-label="Main"
        onKeyDown={(e) => {
          if (e.key === 'Escape' && overlays) {
            e.preventDefault();
            dismiss();
          }
        }}
      >
        <div className="sidebar-top">
          <span className="brand" aria-hidden="true">
            Rein
          </span>
          <button
            ref={toggle}
            type="button"
            className="sidebar-toggle"
            aria-expanded={!collapsed}
            aria-controls="main-nav-items"
            aria-label={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
            title={collapsed ? 'Show the names of the views' : 'Show icons only'}
            onClick={() => dispatch({ type: 'toggle' })}
          >
            {toggleIcon}
          </button>
        </div>
        <ul id="main-nav-items">
          {items.map((v) => {
            const count = counts?.[v.id] ?? 0;
            return (
              <li key={v.id}>
                <button
                  type="button"
                  className="nav-item"
                  aria-current={current === v.id ? 'page' : undefined}
                  onClick={() => {
                    onPick(v.id);
                    dispatch({ type: 'navigated' });
                  }}
                  title={`${v.label} (Alt+${v.key})`}
                >
                  {v.icon}
                  <span className="nav-label">{v.label}</span>
                  {count > 0 && (
                    <span className="badge count" aria-label={`${count} waiting`}>
                      {count}
                    </span>
                  )}
                </button>
              </li>
            );
          })}
        </ul>
      </nav>
      {overlays && <div className="sidebar-backdrop" aria-hidden="true" onClick={dismiss} />}
    </div>
  );
}
