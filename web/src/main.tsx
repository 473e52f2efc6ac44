import { render } from 'preact';
import { fetchEarly } from './api';
import { App } from './app';
import { firstPageRequest } from './pages/messages';
import { currentPath } from './router';
import { rememberProject, storedProject } from './session';
import './styles.css';

// The session and, on the messages page, its first page are requested at once, side by side,
// rather than one after the other as the components mount.
rememberProject(storedProject());
fetchEarly('/v1/auth/session');
if (currentPath() === '/messages') fetchEarly(firstPageRequest(new URLSearchParams(location.search)));

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
