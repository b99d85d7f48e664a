import type { AuthUser } from '@oasis198/contracts';
import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { setSession } from '../api/session';
import { AppProviders, createQueryClient } from '../app/App';
import { routes } from '../app/routes';

export interface RenderOptions {
  user?: AuthUser | null;
  state?: unknown;
  /** Use with jest.useFakeTimers(). */
  fakeTimers?: boolean;
}

/** Renders the whole app (real routes, providers and screens) at a path. */
export function renderApp(path: string, options: RenderOptions = {}) {
  setSession(options.user ?? null);
  const client = createQueryClient();
  client.setDefaultOptions({
    ...client.getDefaultOptions(),
    queries: { ...client.getDefaultOptions().queries, retryDelay: 1, gcTime: Infinity },
  });
  const router = createMemoryRouter(routes, {
    initialEntries: [options.state === undefined ? path : { pathname: path, state: options.state }],
  });
  const user = userEvent.setup(
    options.fakeTimers ? { advanceTimers: (ms) => jest.advanceTimersByTime(ms) } : {},
  );
  const view = render(
    <AppProviders client={client}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { ...view, router, client, user };
}
