/**
 * The sidebar's shape. Below NARROW_WIDTH (the menu-bar window, a phone-sized browser) it shows icons
 * only, so the views keep the width; its toggle expands it over the content, never beside it, so
 * nothing is pushed off screen, and picking a view (or Esc) folds it back. In a wide window the toggle
 * folds it to icons and back. Crossing the width starts over from what suits the new width.
 */
export const NARROW_WIDTH = 720;
export const NARROW_QUERY = `(max-width: ${NARROW_WIDTH - 1}px)`;

export interface SidebarState {
  narrow: boolean;
  /** auto: what suits the width (icons when narrow); otherwise what the person chose. */
  choice: 'auto' | 'expanded' | 'collapsed';
}

export type SidebarAction =
  { type: 'width'; narrow: boolean } | { type: 'toggle' } | { type: 'navigated' } | { type: 'dismiss' };

export const initialSidebar = (narrow: boolean): SidebarState => ({ narrow, choice: 'auto' });

/** Icons only. */
export function sidebarCollapsed(s: SidebarState): boolean {
  return s.choice === 'collapsed' || (s.choice === 'auto' && s.narrow);
}

/** Expanded over the content (a narrow window): it folds back once the person has gone somewhere. */
export function sidebarOverlays(s: SidebarState): boolean {
  return s.narrow && !sidebarCollapsed(s);
}

export function sidebarReducer(s: SidebarState, a: SidebarAction): SidebarState {
  switch (a.type) {
    case 'width':
      return a.narrow === s.narrow ? s : initialSidebar(a.narrow);
    case 'toggle':
      return { ...s, choice: sidebarCollapsed(s) ? 'expanded' : 'collapsed' };
    case 'navigated':
    case 'dismiss':
      return sidebarOverlays(s) ? { ...s, choice: 'auto' } : s;
  }
}
