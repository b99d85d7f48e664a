import { MESSAGES } from '@oasis198/game-rules';
import { screen, within } from '@testing-library/react';
import { getSession } from '../api/session';
import { fakeApi } from '../testing/fake-network';
import { ALICE, reward } from '../testing/fixtures';
import { renderApp } from '../testing/render';

async function fill(user: ReturnType<typeof renderApp>['user'], values: Record<string, string>) {
  for (const [label, value] of Object.entries(values)) {
    if (value) await user.type(screen.getByLabelText(label), value);
  }
}

const VALID = {
  Username: 'alice',
  'E-mail': 'alice@example.com',
  Password: 'secret123',
  'Confirm password': 'secret123',
};

describe('/join', () => {
  it('shows every SPEC validation message, including a password mismatch', async () => {
    const api = fakeApi();
    const { user } = renderApp('/join');
    await screen.findByLabelText('Username');
    await fill(user, { Username: 'al', 'E-mail': 'x@y', Password: 'abc', 'Confirm password': 'abd' });
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(screen.getByText(MESSAGES.username)).toBeInTheDocument();
    expect(screen.getByText(MESSAGES.email)).toBeInTheDocument();
    expect(screen.getByText(MESSAGES.password)).toBeInTheDocument();
    expect(screen.getByText(MESSAGES.confirmedPassword)).toBeInTheDocument();
    expect(screen.getByLabelText('Username')).toHaveFocus();
    expect(api.calls).toHaveLength(0);
  });

  it('registers, creates the reward record, says so and goes to the new profile', async () => {
    const api = fakeApi({
      'POST /api/users/': { body: ALICE },
      'POST /api/rewards/': { body: reward() },
      [`GET /api/rewards/${ALICE._id}`]: { body: reward() },
    });
    const { user, router } = renderApp('/join');
    await screen.findByLabelText('Username');
    await fill(user, VALID);
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    const dialog = await screen.findByRole('dialog', { name: 'Account has been successfully created' });
    expect(api.callsTo('POST /api/users/')[0]?.body).toEqual({
      name: 'alice',
      email: 'alice@example.com',
      password: 'secret123',
      confirmedPassword: 'secret123',
    });
    const rewardCall = api.callsTo('POST /api/rewards/')[0];
    expect(rewardCall?.body).toEqual({ playerId: ALICE._id, playerName: 'alice' });
    expect(rewardCall?.headers.Authorization).toBe(`Bearer ${ALICE.token}`);
    expect(getSession()).toEqual({ ...ALICE, email: 'alice@example.com' });
    await user.click(within(dialog).getByRole('button', { name: 'Ok' }));
    expect(router.state.location.pathname).toBe('/profile');
  });

  it("answers a 409 with 'oops, user already exists'", async () => {
    fakeApi({
      'POST /api/users/': { status: 409, body: { message: 'That e-mail is taken.', code: 'CONFLICT' } },
    });
    const { user } = renderApp('/join');
    await screen.findByLabelText('Username');
    await fill(user, VALID);
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByRole('alertdialog', { name: 'oops, user already exists' })).toBeInTheDocument();
    expect(getSession()).toBeNull();
  });

  it("shows the server's message for a 400", async () => {
    const message = 'This password is too common. Please choose a less predictable one.';
    fakeApi({
      'POST /api/users/': {
        status: 400,
        body: { message, code: 'VALIDATION', details: { password: message } },
      },
    });
    const { user } = renderApp('/join');
    await screen.findByLabelText('Username');
    await fill(user, VALID);
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    const dialog = await screen.findByRole('alertdialog', { name: message });
    await user.click(within(dialog).getByRole('button', { name: 'Try Again' }));
    expect(screen.getByText(message)).toBeInTheDocument();
  });

  it('sends a logged-in user to /profile', async () => {
    fakeApi({ [`GET /api/rewards/${ALICE._id}`]: { body: reward() } });
    const { router } = renderApp('/join', { user: ALICE });
    await screen.findByRole('heading', { name: /Profile/ });
    expect(router.state.location.pathname).toBe('/profile');
  });
});
