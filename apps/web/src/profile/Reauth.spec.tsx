import { COMMON_MESSAGES, USER_MESSAGES } from '@oasis198/contracts';
import { screen, within } from '@testing-library/react';
import { getSession, type Session } from '../api/session';
import { fakeApi, type FakeRequest, type FakeResponse } from '../testing/fake-network';
import { ALICE, reward } from '../testing/fixtures';
import { renderApp } from '../testing/render';

/**
 * DECISIONS "Re-authentication": an e-mail or password change, or a deletion, with a login older
 * than the server's window answers 401 reauth_required; the app asks for the password, logs in
 * again, keeps the fresh token and repeats the change.
 */
const REWARD = `GET /api/rewards/${ALICE._id}`;
const EDIT = 'PATCH /api/users/edit';
const LOGIN = 'POST /api/users/login';
const DELETE = 'DELETE /api/users/delete';
const EMAIL = 'alice@example.com';
const SIGNED_IN = { ...ALICE, email: EMAIL };
const FRESH = 'token-alice-fresh';
const TITLE = 'Please enter your password to continue';

const REAUTH: FakeResponse = {
  status: 401,
  body: { code: 'reauth_required', message: COMMON_MESSAGES.reauthRequired },
};

/** Answers reauth_required to the old token and `ok` to the fresh one, as the gateway would. */
const needsFreshToken =
  (ok: FakeResponse) =>
  (req: FakeRequest): FakeResponse =>
    req.headers.Authorization === `Bearer ${FRESH}` ? ok : REAUTH;

const login = (req: FakeRequest): FakeResponse =>
  (req.body as { password?: string }).password === 'secret1'
    ? { body: { _id: ALICE._id, name: ALICE.name, token: FRESH } }
    : { status: 400, body: { code: 'VALIDATION', message: USER_MESSAGES.badCredentials } };

async function openEmailForm(session: Session = SIGNED_IN) {
  const view = renderApp('/profile', { user: session });
  await view.user.click(await screen.findByRole('tab', { name: 'Edit' }));
  await view.user.click(screen.getByRole('radio', { name: 'Edit E-mail' }));
  await view.user.type(screen.getByLabelText('New e-mail'), 'new@example.com');
  await view.user.click(screen.getByRole('button', { name: 'Save' }));
  return view;
}

describe('re-authentication', () => {
  it('asks for the password, logs in again, keeps the fresh token and repeats the change', async () => {
    const api = fakeApi({
      [REWARD]: { body: reward() },
      [EDIT]: needsFreshToken({ body: { user: { ...ALICE, token: FRESH, email: 'new@example.com' } } }),
      [LOGIN]: login,
    });
    const { user } = await openEmailForm();

    const dialog = await screen.findByRole('dialog', { name: TITLE });
    const password = within(dialog).getByLabelText('Password');
    expect(password).toHaveFocus();
    // The refusal is not a lost session: the user is still logged in while the dialog asks.
    expect(getSession()).toEqual(SIGNED_IN);
    await user.type(password, 'secret1');
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }));

    expect(await screen.findByText('E-mail changed successfully')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(api.callsTo(LOGIN).map((c) => c.body)).toEqual([{ email: EMAIL, password: 'secret1' }]);
    const edits = api.callsTo(EDIT);
    expect(edits.map((c) => c.headers.Authorization)).toEqual([`Bearer ${ALICE.token}`, `Bearer ${FRESH}`]);
    expect(edits.map((c) => c.body)).toEqual([{ email: 'new@example.com' }, { email: 'new@example.com' }]);
    expect(getSession()).toEqual({ ...ALICE, token: FRESH, email: 'new@example.com' });
    expect(JSON.parse(window.localStorage.getItem('user') ?? 'null')).toMatchObject({ token: FRESH });
  });

  it('changes nothing on Cancel, and the form stays as it was', async () => {
    const api = fakeApi({ [REWARD]: { body: reward() }, [EDIT]: REAUTH, [LOGIN]: login });
    const { user } = await openEmailForm();
    const dialog = await screen.findByRole('dialog', { name: TITLE });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));

    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(api.callsTo(LOGIN)).toHaveLength(0);
    expect(api.callsTo(EDIT)).toHaveLength(1);
    expect(screen.queryByText('E-mail changed successfully')).not.toBeInTheDocument();
    expect(screen.queryByText("Unfortunately, it didn't change")).not.toBeInTheDocument();
    expect(screen.getByLabelText('New e-mail')).toHaveValue('new@example.com');
    expect(getSession()).toEqual(SIGNED_IN);
  });

  it("says 'Unfortunately, it didn't change' for a wrong password, changes nothing, and lets the user try again", async () => {
    const api = fakeApi({
      [REWARD]: { body: reward() },
      [EDIT]: needsFreshToken({ body: { user: { ...ALICE, email: 'new@example.com' } } }),
      [LOGIN]: login,
    });
    const { user } = await openEmailForm();
    const dialog = await screen.findByRole('dialog', { name: TITLE });
    await user.type(within(dialog).getByLabelText('Password'), 'wrong12');
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }));

    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent("Unfortunately, it didn't change");
    expect(alert).toHaveTextContent(USER_MESSAGES.badCredentials);
    expect(within(dialog).getByLabelText('Password')).toHaveFocus();
    expect(api.callsTo(EDIT)).toHaveLength(1);
    expect(getSession()).toEqual(SIGNED_IN);

    // The keyboard alone: the password and Enter.
    await user.keyboard('secret1{Enter}');
    expect(await screen.findByText('E-mail changed successfully')).toBeInTheDocument();
    expect(api.callsTo(EDIT)).toHaveLength(2);
  });

  it('closes on Escape as on Cancel, and gives focus back', async () => {
    const api = fakeApi({ [REWARD]: { body: reward() }, [EDIT]: REAUTH });
    const { user } = await openEmailForm();
    await screen.findByRole('dialog', { name: TITLE });
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Save' })).toHaveFocus();
    expect(api.callsTo(EDIT)).toHaveLength(1);
    expect(getSession()).toEqual(SIGNED_IN);
  });

  it('deletes the account after the password', async () => {
    const api = fakeApi({
      [REWARD]: { body: reward() },
      [DELETE]: needsFreshToken({ body: { message: 'deleted' } }),
      [`DELETE /api/rewards/${ALICE._id}/delete`]: { body: { message: 'deleted' } },
      [LOGIN]: login,
    });
    const { user } = renderApp('/profile', { user: SIGNED_IN });
    await user.click(await screen.findByRole('tab', { name: 'Edit' }));
    await user.click(screen.getByRole('button', { name: 'Delete account' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Confirm to delete account?' });
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));

    const dialog = await screen.findByRole('dialog', { name: TITLE });
    await user.type(within(dialog).getByLabelText('Password'), 'secret1');
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect(
      await screen.findByRole('dialog', { name: 'You have successfully deleted your account!' }),
    ).toBeInTheDocument();
    expect(api.callsTo(DELETE).map((c) => c.headers.Authorization)).toEqual([
      `Bearer ${ALICE.token}`,
      `Bearer ${FRESH}`,
    ]);
    expect(getSession()).toBeNull();
  });

  it('keeps the account on Cancel, with the delete question still open and no error', async () => {
    const api = fakeApi({ [REWARD]: { body: reward() }, [DELETE]: REAUTH });
    const { user } = renderApp('/profile', { user: SIGNED_IN });
    await user.click(await screen.findByRole('tab', { name: 'Edit' }));
    await user.click(screen.getByRole('button', { name: 'Delete account' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Confirm to delete account?' });
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: TITLE });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));

    expect(screen.queryByRole('dialog', { name: TITLE })).not.toBeInTheDocument();
    expect(within(confirm).getByRole('button', { name: 'Delete' })).toHaveFocus();
    expect(within(confirm).queryByRole('alert')).not.toBeInTheDocument();
    expect(api.callsTo(DELETE)).toHaveLength(1);
    expect(api.callsTo(`DELETE /api/rewards/${ALICE._id}/delete`)).toHaveLength(0);
    expect(getSession()).toEqual(SIGNED_IN);
  });

  it('asks for the e-mail too when the session never saw it, and refuses another account', async () => {
    const api = fakeApi({
      [REWARD]: { body: reward() },
      [EDIT]: REAUTH,
      [LOGIN]: { body: { _id: 'user-mallory', name: 'mallory', token: 'token-mallory' } },
    });
    const { user } = await openEmailForm(ALICE);
    const dialog = await screen.findByRole('dialog', { name: TITLE });
    expect(within(dialog).getByLabelText('E-mail')).toHaveFocus();
    await user.type(within(dialog).getByLabelText('E-mail'), 'mallory@example.com');
    await user.type(within(dialog).getByLabelText('Password'), 'secret1');
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }));

    expect(await within(dialog).findByRole('alert')).toHaveTextContent("Unfortunately, it didn't change");
    expect(api.callsTo(LOGIN)[0]?.body).toEqual({ email: 'mallory@example.com', password: 'secret1' });
    expect(api.callsTo(EDIT)).toHaveLength(1);
    expect(getSession()).toEqual(ALICE);
  });

  it('does not ask a user whose login is recent', async () => {
    const api = fakeApi({
      [REWARD]: { body: reward() },
      [EDIT]: { body: { user: { ...ALICE, email: 'new@example.com' } } },
    });
    await openEmailForm();
    expect(await screen.findByText('E-mail changed successfully')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(api.callsTo(EDIT)).toHaveLength(1);
    expect(api.callsTo(LOGIN)).toHaveLength(0);
  });
});
