import { MESSAGES } from '@oasis198/game-rules';
import { screen, within } from '@testing-library/react';
import { getSession } from '../api/session';
import { fakeApi } from '../testing/fake-network';
import { ALICE, reward } from '../testing/fixtures';
import { renderApp } from '../testing/render';

describe('/login', () => {
  it('validates e-mail and password with the SPEC messages before calling the server', async () => {
    const api = fakeApi();
    const { user } = renderApp('/login');
    await user.type(await screen.findByLabelText('E-mail'), 'nope');
    await user.type(screen.getByLabelText('Password'), 'a!');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(screen.getByText(MESSAGES.email)).toBeInTheDocument();
    expect(screen.getByText(MESSAGES.password)).toBeInTheDocument();
    expect(screen.getByLabelText('E-mail')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('E-mail')).toHaveFocus();
    expect(api.calls).toHaveLength(0);
  });

  it('logs in, stores the user and says so; Ok goes home', async () => {
    const api = fakeApi({ 'POST /api/users/login': { body: ALICE } });
    const { user, router } = renderApp('/login');
    await user.type(await screen.findByLabelText('E-mail'), 'alice@example.com');
    await user.type(screen.getByLabelText('Password'), 'secret123');
    await user.click(screen.getByRole('button', { name: 'Log in' }));

    const dialog = await screen.findByRole('dialog', { name: 'You have successfully logged in' });
    expect(api.callsTo('POST /api/users/login')[0]?.body).toEqual({
      email: 'alice@example.com',
      password: 'secret123',
    });
    // With the e-mail it logged in with, which the password dialog logs in with again.
    const stored = { ...ALICE, email: 'alice@example.com' };
    expect(getSession()).toEqual(stored);
    expect(JSON.parse(window.localStorage.getItem('user') ?? 'null')).toEqual(stored);
    await user.click(within(dialog).getByRole('button', { name: 'Ok' }));
    expect(router.state.location.pathname).toBe('/');
  });

  it('says it failed, with Try Again back to the form', async () => {
    fakeApi({
      'POST /api/users/login': {
        status: 401,
        body: { message: 'Invalid e-mail or password.', code: 'UNAUTHORIZED' },
      },
    });
    const { user } = renderApp('/login');
    await user.type(await screen.findByLabelText('E-mail'), 'alice@example.com');
    await user.type(screen.getByLabelText('Password'), 'secret123');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'You have failed to log in, try again' });
    expect(within(dialog).getByText('Invalid e-mail or password.')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Try Again' }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(getSession()).toBeNull();
  });

  it('sends a logged-in user to /profile', async () => {
    fakeApi({ [`GET /api/rewards/${ALICE._id}`]: { body: reward() } });
    const { router } = renderApp('/login', { user: ALICE });
    expect(await screen.findByRole('heading', { name: /Profile/ })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/profile');
  });

  it('links to /forget-password and /join', async () => {
    fakeApi();
    renderApp('/login');
    expect(await screen.findByRole('link', { name: 'Forgot your password?' })).toHaveAttribute(
      'href',
      '/forget-password',
    );
    expect(screen.getByRole('link', { name: 'Join' })).toHaveAttribute('href', '/join');
  });
});
