import { USER_MESSAGES } from '@oasis198/contracts';
import { MESSAGES } from '@oasis198/game-rules';
import { screen, within } from '@testing-library/react';
import { fakeApi } from '../testing/fake-network';
import { renderApp } from '../testing/render';

const RESET = 'POST /api/users/reset-password';
const TOKEN = 'a'.repeat(43);

/** The screen's lazily loaded chunk may take a while on a busy machine. */
const LOADED = { timeout: 10_000 };
jest.setTimeout(30_000);

describe('/reset-password', () => {
  it("checks SPEC §5's rules, sends the token, then 'Password changed successfully' with Ok to /login", async () => {
    const net = fakeApi({ [RESET]: { status: 200, body: { message: USER_MESSAGES.passwordChanged } } });
    const { user, router } = renderApp(`/reset-password?token=${TOKEN}`);
    await user.type(await screen.findByLabelText('New password', {}, LOADED), 'ab!');
    await user.type(screen.getByLabelText('Confirm password'), 'other');
    await user.click(screen.getByRole('button', { name: 'Set password' }));
    expect(screen.getByText(MESSAGES.password)).toBeInTheDocument();
    expect(screen.getByText(MESSAGES.confirmedPassword)).toBeInTheDocument();
    expect(net.callsTo(RESET)).toHaveLength(0);

    await user.clear(screen.getByLabelText('New password'));
    await user.type(screen.getByLabelText('New password'), 'Fresh2Pass9');
    await user.clear(screen.getByLabelText('Confirm password'));
    await user.type(screen.getByLabelText('Confirm password'), 'Fresh2Pass9');
    await user.click(screen.getByRole('button', { name: 'Set password' }));
    const dialog = await screen.findByRole('dialog', { name: USER_MESSAGES.passwordChanged });
    expect(net.callsTo(RESET).map((c) => c.body)).toEqual([
      { token: TOKEN, password: 'Fresh2Pass9', confirmedPassword: 'Fresh2Pass9' },
    ]);
    await user.click(within(dialog).getByRole('button', { name: 'Ok' }));
    expect(router.state.location.pathname).toBe('/login');
  });

  it('shows the server’s refusal of a common password beside the field, and keeps the form', async () => {
    fakeApi({
      [RESET]: { status: 400, body: { message: USER_MESSAGES.commonPassword, code: 'VALIDATION' } },
    });
    const { user } = renderApp(`/reset-password?token=${TOKEN}`);
    await user.type(await screen.findByLabelText('New password', {}, LOADED), 'password1');
    await user.type(screen.getByLabelText('Confirm password'), 'password1');
    await user.click(screen.getByRole('button', { name: 'Set password' }));
    expect(await screen.findByText(USER_MESSAGES.commonPassword, {}, LOADED)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Set password' })).toBeEnabled();
  });

  it("says 'This link has expired. Ask for a new one.' for a 410, with a link to /forget-password", async () => {
    fakeApi({ [RESET]: { status: 410, body: { message: USER_MESSAGES.resetLinkExpired, code: 'GONE' } } });
    const { user, router } = renderApp(`/reset-password?token=${TOKEN}`);
    await user.type(await screen.findByLabelText('New password', {}, LOADED), 'Fresh2Pass9');
    await user.type(screen.getByLabelText('Confirm password'), 'Fresh2Pass9');
    await user.click(screen.getByRole('button', { name: 'Set password' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(USER_MESSAGES.resetLinkExpired);
    await user.click(screen.getByRole('link', { name: 'Ask for a new link' }));
    expect(router.state.location.pathname).toBe('/forget-password');
  });

  it('says the link expired at once when it carries no token', async () => {
    fakeApi();
    renderApp('/reset-password');
    expect(await screen.findByRole('alert')).toHaveTextContent(USER_MESSAGES.resetLinkExpired);
    expect(screen.queryByLabelText('New password')).not.toBeInTheDocument();
  });
});
