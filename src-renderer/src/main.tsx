import './zodConfig.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { chooseApi } from './api/pickApi.js';
import { App } from './App.js';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
// Read (and strip) the launch token before anything else can see the address.
const choice = chooseApi(window);
createRoot(root).render(
  <StrictMode>
    <App choice={choice} />
  </StrictMode>,
);
