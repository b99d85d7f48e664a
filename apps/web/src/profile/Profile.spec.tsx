import { MESSAGES } from '@oasis198/game-rules';
import { act, screen, within } from '@testing-library/react';
import { getSession } from '../api/session';
import { fakeApi } from '../testing/fake-network';
import { ALICE, reward, unavailable, UNAVAILABLE_TEXT } from '../testing/fixtures';
import { renderApp } from '../testing/render';

const REWARD = `GET /api/rewards/${ALICE._id}`;

describe('/profile', () => {
  it('redirects to /login when logged out', async () => {
    fakeApi();
    const { router } = renderApp('/profile');
    expect(await screen.findByRole('heading', { name: 'Welcome back, traveller' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it('shows a spinner, then the cards and the Coin panel', async () => {
    let answer: (value: { body: unknown }) => void = () => undefined;
    fakeApi({ [REWARD]: () => new Promise((resolve) => (answer = resolve)) });
    renderApp('/profile', { user: ALICE });
    expect(await screen.findByRole('status')).toHaveTextContent('Loading…');
    act(() => answer({ body: reward() }));

    await screen.findByText('Player name');
    const card = (label: string) => screen.getByText(label).closest('div') as HTMLElement;
    expect(card('Player name')).toHaveTextContent('alice');
    expect(card('Played games')).toHaveTextContent('12');
    expect(card('Assets')).toHaveTextContent('250 points · 80 coins');
    expect(card('Premium category')).toHaveTextContent('Silver');
    expect(card('Champion titles')).toHaveTextContent('Blitz winner');
    expect(card('Status and level')).toHaveTextContent('Rookie · Level 3');

    const panel = screen.getByRole('tabpanel');
    expect(within(panel).getByText('Points').nextElementSibling).toHaveTextContent('250');
    expect(within(panel).getByText('Coins').nextElementSibling).toHaveTextContent('80');
  });

  it('counts one point and one coin in the singular', async () => {
    fakeApi({ [REWARD]: { body: reward({ assets: { points: 1, coins: 1 } }) } });
    renderApp('/profile', { user: ALICE });
    const label = await screen.findByText('Assets');
    expect(label.closest('div')).toHaveTextContent('1 point · 1 coin');
  });

  it("shows 'none' when no premium category is true", async () => {
    fakeApi({
      [REWARD]: {
        body: reward({ categories: { bronze: false, silver: false, gold: false, platinum: false } }),
      },
    });
    renderApp('/profile', { user: ALICE });
    const label = await screen.findByText('Premium category');
    expect(label.closest('div')).toHaveTextContent('none');
  });

  it('says the network failed and retries after 10 s', async () => {
    jest.useFakeTimers();
    try {
      let fail = true;
      const api = fakeApi({ [REWARD]: () => (fail ? 'network-error' : { body: reward() }) });
      renderApp('/profile', { user: ALICE, fakeTimers: true });
      expect(await screen.findByText('Network connection error try again later')).toBeInTheDocument();
      expect(api.callsTo(REWARD)).toHaveLength(1);
      fail = false;
      await act(async () => {
        await jest.advanceTimersByTimeAsync(9_000);
      });
      expect(api.callsTo(REWARD)).toHaveLength(1);
      await act(async () => {
        await jest.advanceTimersByTimeAsync(1_100);
      });
      expect(api.callsTo(REWARD)).toHaveLength(2);
      expect(await screen.findByText('Player name')).toBeInTheDocument();
      expect(screen.queryByText('Network connection error try again later')).not.toBeInTheDocument();
    } finally {
      jest.useRealTimers();
    }
  });

  it('logs the user out when the reward is not found (404)', async () => {
    fakeApi({ [REWARD]: { status: 404, body: { message: 'Not found.', code: 'NOT_FOUND' } } });
    const { router } = renderApp('/profile', { user: ALICE });
    expect(await screen.findByRole('heading', { name: 'Welcome back, traveller' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(getSession()).toBeNull();
  });

  it('changes the username, renames the reward and says so', async () => {
    const api = fakeApi({
      [REWARD]: { body: reward() },
      'PATCH /api/users/edit': { body: { user: { ...ALICE, name: 'alice2', email: 'a@example.com' } } },
      [`PATCH /api/rewards/${ALICE._id}/edit`]: { body: { reward: reward({ playerName: 'alice2' }) } },
    });
    const { user } = renderApp('/profile', { user: ALICE });
    await user.click(await screen.findByRole('tab', { name: 'Edit' }));
    await user.click(screen.getByRole('radio', { name: 'Edit Username' }));
    await user.type(screen.getByLabelText('New username'), 'a!');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByText(MESSAGES.username)).toBeInTheDocument();
    await user.clear(screen.getByLabelText('New username'));
    await user.type(screen.getByLabelText('New username'), 'alice2');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Username changed successfully')).toBeInTheDocument();
    const edit = api.callsTo('PATCH /api/users/edit')[0];
    expect(edit?.body).toEqual({ name: 'alice2' });
    expect(edit?.headers.Authorization).toBe(`Bearer ${ALICE.token}`);
    expect(api.callsTo(`PATCH /api/rewards/${ALICE._id}/edit`)[0]?.body).toEqual({ playerName: 'alice2' });
    expect(getSession()).toEqual({ ...ALICE, name: 'alice2', email: 'a@example.com' });
  });

  it('changes the e-mail', async () => {
    const api = fakeApi({
      [REWARD]: { body: reward() },
      'PATCH /api/users/edit': { body: { user: { ...ALICE, email: 'new@example.com' } } },
    });
    const { user } = renderApp('/profile', { user: ALICE });
    await user.click(await screen.findByRole('tab', { name: 'Edit' }));
    await user.click(screen.getByRole('radio', { name: 'Edit E-mail' }));
    await user.type(screen.getByLabelText('New e-mail'), 'new@example.com');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('E-mail changed successfully')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/users/edit')[0]?.body).toEqual({ email: 'new@example.com' });
  });

  it("checks the password confirmation, and says 'Unfortunately, it didn't change' on failure", async () => {
    const message = 'This password is too common. Please choose a less predictable one.';
    fakeApi({
      [REWARD]: { body: reward() },
      'PATCH /api/users/edit': { status: 400, body: { message, code: 'VALIDATION' } },
    });
    const { user } = renderApp('/profile', { user: ALICE });
    await user.click(await screen.findByRole('tab', { name: 'Edit' }));
    await user.click(screen.getByRole('radio', { name: 'Edit Password' }));
    await user.type(screen.getByLabelText('New password'), 'password1');
    await user.type(screen.getByLabelText('Confirm password'), 'password2');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByText(MESSAGES.confirmedPassword)).toBeInTheDocument();

    await user.clear(screen.getByLabelText('Confirm password'));
    await user.type(screen.getByLabelText('Confirm password'), 'password1');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const alert = await screen.findByText("Unfortunately, it didn't change");
    expect(alert.closest('[role="alert"]')).toHaveTextContent(message);
    expect(getSession()).toEqual(ALICE);
  });

  it("logs out after confirmation and says 'You have successfully logged out!'", async () => {
    const api = fakeApi({
      [REWARD]: { body: reward() },
      'POST /api/users/logout': { body: { message: 'ok' } },
    });
    const { user, router } = renderApp('/profile', { user: ALICE });
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    let dialog = screen.getByRole('dialog', { name: 'Are you sure you want to log out?' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Log out' }));
    dialog = screen.getByRole('dialog', { name: 'Are you sure you want to log out?' });
    await user.click(within(dialog).getByRole('button', { name: 'Exit' }));
    const done = await screen.findByRole('dialog', { name: 'You have successfully logged out!' });
    expect(api.callsTo('POST /api/users/logout')[0]?.headers.Authorization).toBe(`Bearer ${ALICE.token}`);
    expect(getSession()).toBeNull();
    await user.click(within(done).getByRole('button', { name: 'Ok' }));
    expect(router.state.location.pathname).toBe('/');
  });

  it('deletes the account and the reward after confirmation', async () => {
    const api = fakeApi({
      [REWARD]: { body: reward() },
      'DELETE /api/users/delete': { body: { message: 'deleted' } },
      [`DELETE /api/rewards/${ALICE._id}/delete`]: { body: { message: 'deleted' } },
    });
    const { user } = renderApp('/profile', { user: ALICE });
    await user.click(await screen.findByRole('tab', { name: 'Edit' }));
    await user.click(screen.getByRole('button', { name: 'Delete account' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Confirm to delete account?' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(
      await screen.findByRole('dialog', { name: 'You have successfully deleted your account!' }),
    ).toBeInTheDocument();
    expect(api.callsTo('DELETE /api/users/delete')).toHaveLength(1);
    expect(api.callsTo(`DELETE /api/rewards/${ALICE._id}/delete`)).toHaveLength(1);
    expect(getSession()).toBeNull();
  });

  it('does nothing further when the deletion fails', async () => {
    const api = fakeApi({
      [REWARD]: { body: reward() },
      'DELETE /api/users/delete': unavailable,
    });
    const { user } = renderApp('/profile', { user: ALICE });
    await user.click(await screen.findByRole('tab', { name: 'Edit' }));
    await user.click(screen.getByRole('button', { name: 'Delete account' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Confirm to delete account?' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await within(dialog).findByText(UNAVAILABLE_TEXT)).toBeInTheDocument();
    expect(api.callsTo(`DELETE /api/rewards/${ALICE._id}/delete`)).toHaveLength(0);
    expect(getSession()).toEqual(ALICE);
  });

  it('goes back one step with the close control', async () => {
    fakeApi({
      [REWARD]: { body: reward() },
      'GET /api/rooms/': { body: [] },
    });
    const { user, router } = renderApp('/tournaments', { user: ALICE });
    await act(() => router.navigate('/profile'));
    await user.click(await screen.findByRole('button', { name: 'Close profile' }));
    expect(router.state.location.pathname).toBe('/tournaments');
  });
});
