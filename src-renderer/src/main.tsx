import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { z } from 'zod';
import { chooseApi } from './api/pickApi.js';
import { App } from './App.js';
import './styles.css';

// The CSP forbids eval; tell zod up front instead of letting it probe with new Function().
z.config({ jitless: true });

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
// Read (and strip) the launch token before anything else can see the address.
const choice = chooseApi(window);
createRoot(root).render(
  <StrictMode>
    <App choice={choice} />
  </StrictMode>,
);
