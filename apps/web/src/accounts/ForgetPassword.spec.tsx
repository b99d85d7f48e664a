import { MESSAGES } from '@oasis198/game-rules';
import { screen, within } from '@testing-library/react';
import { fakeApi } from '../testing/fake-network';
import { renderApp } from '../testing/render';

describe('/forget-password', () => {
  it("validates the e-mail, then says 'Please, check your E-mail.' and goes to /login", async () => {
    fakeApi();
    const { user, router } = renderApp('/forget-password');
    await user.click(await screen.findByRole('button', { name: 'Send' }));
    expect(screen.getByText(MESSAGES.email)).toBeInTheDocument();
    await user.type(screen.getByLabelText('E-mail'), 'alice@example.com');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(router.state.location.pathname).toBe('/login');
    const dialog = await screen.findByRole('dialog', { name: 'Please, check your E-mail.' });
    await user.click(within(dialog).getByRole('button', { name: 'Ok' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Welcome back, traveller' })).toBeInTheDocument();
  });
});
