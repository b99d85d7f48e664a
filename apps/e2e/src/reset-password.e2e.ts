// A forgotten password, as DECISIONS "Forgotten password" has it: the link comes by mail (read here
// from the stack's Mailpit through its API), sets a new password once, and voids the old session.
import { confirmOk, newPlayer, submitLogin } from './support/accounts';
import { auditScreen } from './support/axe';
import { Person, PHONE } from './support/browser';
import { expect, shot, test } from './support/scenario';

const inbox = process.env['E2E_INBOX_URL'];

/** The reset link of the newest mail to `email`, once one has come. */
async function resetLinkFor(email: string): Promise<string> {
  let link: string | undefined;
  await expect
    .poll(async () => {
      const query = encodeURIComponent(`to:"${email}" subject:"Reset your Oasis 198 password"`);
      const { messages } = (await (await fetch(`${inbox}/api/v1/search?query=${query}`)).json()) as {
        messages: Array<{ ID: string }>;
      };
      if (!messages[0]) return undefined;
      const { Text } = (await (await fetch(`${inbox}/api/v1/message/${messages[0].ID}`)).json()) as {
        Text: string;
      };
      link = /https?:\/\/\S+\/reset-password\?token=[A-Za-z0-9_-]+/.exec(Text)?.[0];
      return link;
    })
    .toBeTruthy();
  return link ?? '';
}

test('36. Forgotten password: the mailed link sets a new one once, and the old session ends', async ({
  browser,
}) => {
  test.skip(!inbox, 'needs the stack’s inbox (E2E_INBOX_URL): the e2e stack prints it');
  // Two browsers, three audited screens, and a password hash per login on a busy machine.
  test.setTimeout(180_000);
  const { person: rania, account } = await newPlayer(browser, 'Rania');
  const { page } = rania;
  const oldToken = await page.evaluate(
    () => JSON.parse(localStorage.getItem('user') ?? '{}').token as string,
  );

  // Another browser, on a phone, where she is not logged in.
  const phone = await Person.enter(browser, 'phone', PHONE);
  await phone.page.goto('/forget-password');
  await phone.page.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
  await phone.page.getByLabel('E-mail').fill(account.email);
  await phone.page.getByRole('button', { name: 'Send' }).click();
  await phone.page.getByRole('dialog', { name: 'Please, check your E-mail.' }).waitFor();
  await shot(phone, 'check-email');
  await phone.page.getByRole('button', { name: 'Ok', exact: true }).click();

  const link = await resetLinkFor(account.email);
  await phone.page.goto(link);
  await phone.page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
  expect(await auditScreen(phone.page, 'reset-password')).toEqual([]);

  // SPEC §5's rules first, then the new password.
  await phone.page.getByLabel('New password', { exact: true }).fill('Oasis9');
  await phone.page.getByLabel('Confirm password', { exact: true }).fill('Oasis8');
  await phone.page.getByRole('button', { name: 'Set password' }).click();
  await phone.page.getByText('The passwords do not match.').waitFor();
  await shot(phone, 'mismatch');
  const fresh = `Palm${account.password.slice(4, 10)}Sand`;
  await phone.page.getByLabel('New password', { exact: true }).fill(fresh);
  await phone.page.getByLabel('Confirm password', { exact: true }).fill(fresh);
  await phone.page.getByRole('button', { name: 'Set password' }).click();
  const done = phone.page.getByRole('dialog', { name: 'Password changed successfully' });
  await done.waitFor();
  expect(await auditScreen(phone.page, 'reset-password-done')).toEqual([]);
  await done.getByRole('button', { name: 'Ok' }).click();
  await phone.page.waitForURL('**/login');

  // The old password no longer works; the new one does.
  await submitLogin(phone.page, account);
  await phone.page.getByRole('alertdialog', { name: 'You have failed to log in, try again' }).waitFor();
  await phone.page.getByRole('button', { name: 'Try Again' }).click();
  await submitLogin(phone.page, { email: account.email, password: fresh });
  await phone.page.getByRole('dialog', { name: 'You have successfully logged in' }).waitFor();
  await confirmOk(phone.page);
  await shot(phone, 'logged-in-with-new-password');

  // The token of the session from before the reset is refused.
  const refused = await page.evaluate(
    async (token) =>
      (await fetch('/api/users/logout', { method: 'POST', headers: { authorization: `Bearer ${token}` } }))
        .status,
    oldToken,
  );
  expect(refused).toBe(401);

  // The same link again: it has expired, with a way to ask for another.
  await phone.page.goto(link);
  await phone.page.getByLabel('New password', { exact: true }).fill(`${fresh}2`.slice(0, 16));
  await phone.page.getByLabel('Confirm password', { exact: true }).fill(`${fresh}2`.slice(0, 16));
  await phone.page.getByRole('button', { name: 'Set password' }).click();
  await phone.page
    .getByRole('alert')
    .filter({ hasText: 'This link has expired. Ask for a new one.' })
    .waitFor();
  expect(await auditScreen(phone.page, 'reset-password-expired')).toEqual([]);
  await phone.page.getByRole('link', { name: 'Ask for a new link' }).click();
  await phone.page.waitForURL('**/forget-password');
  await phone.leave();
  await rania.leave();
});
