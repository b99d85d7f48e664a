import { USER_MESSAGES } from '@oasis198/contracts';
import { MESSAGES } from '@oasis198/game-rules';
import { screen, within } from '@testing-library/react';
import { fakeApi } from '../testing/fake-network';
import { renderApp } from '../testing/render';

const FORGOT = 'POST /api/users/forgot-password';

/** The screen's lazily loaded chunk may take a while on a busy machine. */
const LOADED = { timeout: 10_000 };
jest.setTimeout(30_000);

describe('/forget-password', () => {
  it("validates the e-mail, asks for the link, then says 'Please, check your E-mail.' on /login", async () => {
    const net = fakeApi({ [FORGOT]: { status: 202, body: { message: USER_MESSAGES.forgotPassword } } });
    const { user, router } = renderApp('/forget-password');
    await user.click(await screen.findByRole('button', { name: 'Send' }, LOADED));
    expect(screen.getByText(MESSAGES.email)).toBeInTheDocument();
    expect(net.callsTo(FORGOT)).toHaveLength(0);
    await user.type(screen.getByLabelText('E-mail'), 'alice@example.com');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    const dialog = await screen.findByRole('dialog', { name: 'Please, check your E-mail.' });
    expect(router.state.location.pathname).toBe('/login');
    expect(net.callsTo(FORGOT).map((c) => c.body)).toEqual([{ email: 'alice@example.com' }]);
    await user.click(within(dialog).getByRole('button', { name: 'Ok' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Welcome back, traveller' })).toBeInTheDocument();
  });

  it('stays and says so when the address asked too often', async () => {
    const message = 'Too many attempts. Try again in 59 minutes.';
    fakeApi({
      [FORGOT]: { status: 429, body: { message, code: 'RATE_LIMITED' }, headers: { 'Retry-After': '3540' } },
    });
    const { user, router } = renderApp('/forget-password');
    await user.type(await screen.findByLabelText('E-mail', {}, LOADED), 'alice@example.com');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/forget-password');
  });
});
