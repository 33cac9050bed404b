/**
 * The sidebar's icons: small line drawings in the text colour, decorative (aria-hidden): every button
 * that shows one also has its name as text (hidden when the sidebar shows icons only) and a title.
 */
import type { ReactNode } from 'react';

function Icon({ children }: { children: ReactNode }) {
  return (
    <svg
      className="icon"
      viewBox="0 0 20 20"
      width="18"
      height="18"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.6"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {children}
    </svg>
  );
}

export const ICONS = {
  chat: (
    <Icon>
      <path d="M4 4.5h12a1 1 0 0 1 1 1v7.5a1 1 0 0 1-1 1H9l-3.5 3v-3H4a1 1 0 0 1-1-1V5.5a1 1 0 0 1 1-1z" />
    </Icon>
  ),
  approvals: (
    <Icon>
      <path d="M10 2.5l6 2.3v4.6c0 3.7-2.5 6.5-6 8.1-3.5-1.6-6-4.4-6-8.1V4.8z" />
      <path d="M7.3 10.1l1.9 1.9 3.6-3.9" />
    </Icon>
  ),
  agents: (
    <Icon>
      <circle cx="10" cy="6.8" r="3.2" />
      <path d="M3.8 17.2c.4-3.2 2.9-5 6.2-5s5.8 1.8 6.2 5" />
    </Icon>
  ),
  sessions: (
    <Icon>
      <path d="M4 5h12M4 10h12M4 15h7.5" />
    </Icon>
  ),
  schedules: (
    <Icon>
      <circle cx="10" cy="10" r="7" />
      <path d="M10 6v4.2l2.8 1.8" />
    </Icon>
  ),
  settings: (
    <Icon>
      <path d="M3.5 6h13M3.5 14h13" />
      <circle cx="7.5" cy="6" r="2" fill="var(--bg-soft)" />
      <circle cx="12.5" cy="14" r="2" fill="var(--bg-soft)" />
    </Icon>
  ),
  menu: (
    <Icon>
      <path d="M3.5 5.5h13M3.5 10h13M3.5 14.5h13" />
    </Icon>
  ),
  conversations: (
    <Icon>
      <rect x="3" y="3.5" width="14" height="13" rx="1.5" />
      <path d="M8 3.5v13M5 7h1M5 10h1" />
    </Icon>
  ),
} as const;
